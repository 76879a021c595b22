/**
 * The crash matrix: every effect class through every crash point, with a real `ctx.abort()` of
 * the thread's Durable Object, then the alarm that resumes it with no client request. Shared by
 * the test suite (test/crash-matrix.test.ts) and `npm run crash-matrix` (bench/crash-matrix.bench.ts).
 * @module
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { type CallStatus, isFinalStatus } from "../../src/protocol.js";
import { callsOf, createThread, eventsOf, inThread, json, ledgerOf, messagesOf, rawStub, stubOf } from "../helpers.js";

/** Effect classes, by fixture tool. */
export const CLASSES = {
  read: "effect_read",
  write: "effect_write",
  undeclared: "effect_undeclared",
  "idempotent (in window)": "effect_idempotent",
  "idempotent (past window)": "effect_idempotent_short",
  "reconcilable final": "effect_reconcile_final",
  "reconcilable nonfinal": "effect_reconcile_nonfinal",
} as const;

/** Crash points along one call. */
export const POINTS = ["before_journal", "after_journal", "inside_execute", "after_effect"] as const;

export type EffectClass = keyof typeof CLASSES;
export type Point = (typeof POINTS)[number];

/** What recovery must do in a cell. */
export type Expected = "ran once" | "re-run" | "reconciled" | "parked";

/**
 * The table of expected outcomes (weft's effect table, DESIGN.md promise 3). Before the journal row exists
 * nothing ran, so every class simply runs. After it, recovery decides by effect class; whether
 * the effect happened (inside execute, after it) only changes what `lookup` finds.
 */
export function expected(cls: EffectClass, point: Point): Expected {
  if (point === "before_journal") return "ran once";
  const happened = point !== "after_journal";
  switch (cls) {
    case "read":
    case "idempotent (in window)":
      return "re-run";
    case "reconcilable final":
      return happened ? "reconciled" : "re-run";
    case "reconcilable nonfinal":
      return happened ? "reconciled" : "parked";
    default:
      return "parked";
  }
}

/** What one cell did. */
export interface CellResult {
  cls: EffectClass;
  point: Point;
  expected: Expected;
  observed: Expected | "unexpected";
  /** Executions the outside ledger saw, and effects it applied (deduplicated). */
  runs: number;
  applied: number;
  /** A non-read effect applied more than once. */
  writeTwice: boolean;
  /** Final results recorded for the call id (must be exactly 1), and tool messages for it. */
  results: number;
  toolMessages: number;
  /** How the turn cut by the crash ended after resuming by itself. */
  turn: string;
  ok: boolean;
  detail: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Arms a real `ctx.abort()` of thread `id` for the first time call `callId` reaches `point`. */
export async function crashAt(id: string, callId: string, point: string): Promise<void> {
  await inThread(id, (instance) => {
    let fired = false;
    instance.engine.crashHook = (at: string, call: { callId: string }) => {
      if (!fired && at === point && call.callId === callId) {
        fired = true;
        instance.ctx.abort(`injected crash at ${point}`);
      }
    };
  });
}

/** Runs one cell end to end and judges it. */
export async function runCell(cls: EffectClass, point: Point): Promise<CellResult> {
  const tool = CLASSES[cls];
  const id = await createThread({ agent: "guarantees" });
  const callId = "c";
  if (point !== "inside_execute") {
    await crashAt(id, callId, point);
  }
  await json("POST", `/threads/${id}/messages`, {
    content: "go",
    script: [{ toolCalls: [{ id: callId, name: tool, arguments: { hang: point === "inside_execute" } }] }, { text: "done" }],
  });
  if (point === "inside_execute") {
    // The effect is on the ledger and execute hangs: crash the object right there.
    for (let i = 0; i < 200 && (await ledgerOf(`${id}:${callId}`)).runs === 0; i++) await sleep(5);
    await inThread(id, (instance) => instance.ctx.abort("injected crash inside execute")).catch(() => undefined);
  }
  await sleep(20);
  // No client request resumes the thread: the alarm does (run now rather than waited for).
  for (let i = 0; i < 20; i++) {
    const info = (await json("GET", `/threads/${id}`)).body;
    if (info.status !== "running" && info.lastTurn?.status !== "running") break;
    await runDurableObjectAlarm(rawStub(id));
    await stubOf(id).waitIdle();
  }
  let record = (await callsOf(id)).find((c) => c.callId === callId);
  const wasParked = record?.status === "parked";
  const afterRecovery = await ledgerOf(`${id}:${callId}`);
  if (wasParked) {
    // A person settles it, checking the provider first: nothing happened -> retry; else record it.
    const settlement = afterRecovery.applied === 0 ? { outcome: "retry" } : { outcome: "succeeded", result: "confirmed with the provider" };
    await json("POST", `/threads/${id}/calls/${callId}/settle`, settlement);
    await stubOf(id).waitIdle();
    record = (await callsOf(id)).find((c) => c.callId === callId);
  }
  const { runs, applied } = await ledgerOf(`${id}:${callId}`);
  const events = await eventsOf(id);
  const results = events.filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === callId).length;
  const toolMessages = (await messagesOf(id)).filter((m) => m.toolCallId === callId).length;
  const reconciled = record?.result?.result?.includes('"reconciled":true') === true;
  const observed: CellResult["observed"] = wasParked
    ? "parked"
    : reconciled
      ? "reconciled"
      : point === "before_journal" && afterRecovery.runs === 1
        ? "ran once"
        : record?.status === "succeeded"
          ? "re-run"
          : "unexpected";
  const writeTwice = cls !== "read" && applied > 1;
  const final = record !== undefined && isFinalStatus(record.status as CallStatus);
  const info = (await json("GET", `/threads/${id}`)).body;
  const lastText = (await messagesOf(id)).at(-1);
  const turn = `${info.lastTurn?.status ?? "none"}${lastText?.content === "done" ? ", said done" : ""}`;
  const exp = expected(cls, point);
  const ok = observed === exp && !writeTwice && results === 1 && toolMessages === 1 && final === true && turn === "completed, said done";
  return {
    cls,
    point,
    expected: exp,
    observed,
    runs,
    applied,
    writeTwice,
    results,
    toolMessages,
    turn,
    ok,
    detail: `status ${record?.status ?? "none"}, ${runs} run(s), ${applied} applied, ${results} result(s), ${toolMessages} tool message(s), turn ${turn}`,
  };
}

/** Renders the matrix as text, one row per effect class. */
export function render(cells: CellResult[]): string {
  const width = 26;
  const head = ["effect class".padEnd(width), ...POINTS.map((p) => p.padEnd(18))].join(" | ");
  const rows = (Object.keys(CLASSES) as EffectClass[]).map((cls) =>
    [
      cls.padEnd(width),
      ...POINTS.map((p) => {
        const c = cells.find((x) => x.cls === cls && x.point === p);
        return (c ? `${c.ok ? "ok" : "FAIL"} ${c.observed}` : "-").padEnd(18);
      }),
    ].join(" | "),
  );
  return [head, "-".repeat(head.length), ...rows].join("\n");
}

/** The closing line `npm run crash-matrix` promises. */
export function summary(cells: CellResult[]): string {
  const good = cells.filter((c) => c.ok).length;
  const twice = cells.filter((c) => c.writeTwice).length;
  const notOne = cells.filter((c) => c.results !== 1).length;
  return `crash-matrix: ${good}/${cells.length} cells as specified, ${twice} writes run twice, ${notOne} calls without exactly one result`;
}
