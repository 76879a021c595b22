/**
 * The crash matrix: every effect class, called by the model (its call announced while it streamed
 * or not), from the queue, by invokeTool and directly, crashed (a real `ctx.abort()` of the thread's Durable Object) at every point of a call.
 * The thread then resumes by its own alarm; the test only waits. Executions are counted raw on an
 * outside ledger, so "re-run" means the ledger saw two. Shared by test/crash/crash-matrix.test.ts and
 * `npm run crash-matrix` (bench/crash-matrix.bench.ts), with the random run in ./random.ts.
 * @module
 */
import { callsOf, createThread, eventsOf, json, effectRuns, messagesOf, stubOf } from "../helpers.js";
import { EFFECT_PROGRESS } from "../fixtures/lib/effects.js";
import { type PlannedCrash, firedCrashes, planCrashes, recoveredByAlarm } from "./plan.js";

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

/**
 * Crash points along one call; `second_crash` crashes after the effect and again as recovery starts;
 * `effect_unconfirmed` crashes inside `execute` once its effect's message is sent, before the
 * journal row's commit is confirmed (the output gate still holds the message).
 */
export const POINTS = ["before_journal", "after_journal", "effect_unconfirmed", "inside_execute", "after_effect", "while_recording", "after_result", "second_crash", "queue_drain"] as const;

/**
 * Who makes the call, and so which way its journal row goes in behind the output gate: a fresh
 * call of the model, of `invokeTool` or a direct one keeps its row in memory until its result or
 * the end of the synchronous step (its `tool_call_started` stored first locks the gate); a
 * `streamed` one (the model's call announced while its arguments streamed, through the fixtures'
 * `progressArgument`) has its row written at once; a queued one has its row already.
 */
export const SOURCES = ["model", "queue", "invoke", "direct", "streamed"] as const;

export type EffectClass = keyof typeof CLASSES;
export type Point = (typeof POINTS)[number];
export type Source = (typeof SOURCES)[number];

/**
 * What recovery must do, judged by counts: executions on the ledger, a park, a reconcile.
 * `never ran`: a direct call cut before its journal row was durable has no call at all; its caller got the error.
 */
export type Expected = "ran once" | "re-run" | "reconciled" | "parked" | "never ran";

/** Classes whose effect may happen twice for one call id (reads; idempotent inside its window). */
export const MAY_REPEAT: ReadonlySet<EffectClass> = new Set(["read", "idempotent (in window)"]);

/** The cells: every class x point for model calls; queue_drain only for queued calls; every point but queue_drain for the rest. */
export function cells(): { cls: EffectClass; point: Point; source: Source }[] {
  const out: { cls: EffectClass; point: Point; source: Source }[] = [];
  for (const source of SOURCES) {
    for (const point of POINTS) {
      if (point === "queue_drain" && source !== "queue") continue;
      for (const cls of Object.keys(CLASSES) as EffectClass[]) out.push({ cls, point, source });
    }
  }
  return out;
}

/**
 * A sample of the cells that still meets every pair of the three dimensions: every class at every
 * point, every point by every caller and every class by every caller, once each (63 cells, a
 * quarter of the matrix). The caller of class c at point p turns with c + p; queue_drain exists
 * only for queued calls. npm test runs this sample; `npm run crash-matrix` runs every cell.
 */
export function pairwiseCells(): { cls: EffectClass; point: Point; source: Source }[] {
  const classes = Object.keys(CLASSES) as EffectClass[];
  return POINTS.flatMap((point, p) =>
    classes.map((cls, c) => ({ cls, point, source: point === "queue_drain" ? "queue" : SOURCES[(c + p) % SOURCES.length]! })),
  );
}

/**
 * The specification each cell is held to (a write never runs twice; a restart re-runs, reconciles or parks by effect class), written independently of
 * the product's policy table. Before the journal row is confirmed, or once the result is durable,
 * nothing is left to recover. After the row is confirmed, the effect happened (it could not leave
 * before), and the class decides.
 */
export function expected(cls: EffectClass, point: Point, source: Source): { outcome: Expected; runs: number } {
  // `execute` does not wait for its row's commit: cut after the row is written, before the commit
  // is confirmed (with or without the effect's message sent), the row is lost and the output gate
  // never let the message out, so it is as if cut before the row. An effect with no row would show
  // as a run here (a direct call "1 runs", a write run twice).
  const unconfirmed = point === "after_journal" || point === "effect_unconfirmed";
  if ((point === "before_journal" || unconfirmed) && source === "direct") return { outcome: "never ran", runs: 0 };
  if (point === "before_journal" || unconfirmed || point === "after_result" || point === "queue_drain") return { outcome: "ran once", runs: 1 };
  switch (cls) {
    case "read":
    case "idempotent (in window)":
      return { outcome: "re-run", runs: 2 };
    case "reconcilable final":
    case "reconcilable nonfinal":
      return { outcome: "reconciled", runs: 1 };
    default:
      return { outcome: "parked", runs: 1 };
  }
}

/** What one cell did. */
export interface CellResult {
  cls: EffectClass;
  point: Point;
  source: Source;
  expected: Expected;
  observed: string;
  /** Executions of the crashed call the ledger saw (raw). */
  runs: number;
  /** A class that must not repeat executed twice or more. */
  writeTwice: boolean;
  /** Calls of the thread without exactly one final result. */
  callsWithoutOneResult: number;
  ok: boolean;
  detail: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Plans one real `ctx.abort()` of thread `threadId` for the first time call `callId` reaches `point`. */
export async function crashAt(threadId: string, callId: string, point: string): Promise<void> {
  planCrashes(threadId, [{ point, callId }]);
}

/** Waits until every planned crash fired and an alarm ran since the last (no request meanwhile). */
export async function waitForAlarm(threadId: string, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!recoveredByAlarm(threadId)) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** Waits until the thread is at rest: no turn running, no call started without a result. */
export async function waitAtRest(threadId: string, timeoutMs = 15_000): Promise<string | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A read the thread could not answer (it restarted under it) means it is not at rest yet.
    const info = await json("GET", `/threads/${threadId}`);
    const calls = await callsOf(threadId).catch((e: unknown) => String(e));
    const busy =
      info.status !== 200 ||
      typeof calls === "string" ||
      info.body.status === "running" ||
      info.body.lastTurn?.status === "running" ||
      calls.some((c) => c.status === "started" || c.status === "queued");
    if (!busy) return null;
    if (Date.now() > deadline) {
      const what = typeof calls === "string" ? calls : `calls ${calls.map((c) => `${c.callId}:${c.status}`).join(" ")}`;
      return `not at rest after ${timeoutMs} ms: ${info.status === 200 ? info.body.status : `GET answered ${info.status}`}, ${what}`;
    }
    await sleep(20);
  }
}

/**
 * Settles every parked call by a fixed rule that never reads the ledger: the person records it
 * failed ("outcome unknown, not retried"), which never runs the effect again.
 */
export async function settleParked(threadId: string): Promise<number> {
  let settled = 0;
  for (const call of await callsOf(threadId)) {
    if (call.status !== "parked") continue;
    await json("POST", `/threads/${threadId}/calls/${call.callId}/settle`, { outcome: "failed", error: "settled by a person: outcome unknown, not retried" });
    settled++;
  }
  return settled;
}

/** Calls of a thread without exactly one `tool_call_finished` and a final status. */
export async function callsWithoutOneResult(threadId: string): Promise<string[]> {
  const events = await eventsOf(threadId);
  const finals = new Set(["succeeded", "failed", "denied", "aborted"]);
  return (await callsOf(threadId)).flatMap((c) => {
    const results = events.filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === c.callId).length;
    return results === 1 && finals.has(c.status) ? [] : [`${c.callId}: ${results} results, ${c.status}`];
  });
}

/** Starts the call of a cell; `target` is the id of the call that crashes. */
async function start(threadId: string, cls: EffectClass, source: Source): Promise<{ target: string; visible: string | null }> {
  const tool = CLASSES[cls];
  if (source === "direct") {
    // The RPC dies with the object; the alarm finishes the call.
    // As the thread's owner (the test worker's "tester" key), straight to the object with a known call id.
    const owner = { userId: "tester", name: "tester", roles: [], admin: false };
    await stubOf(threadId).callTool(owner, { toolName: tool, input: {}, callId: "c" }).catch(() => undefined);
    return { target: "c", visible: null };
  }
  const call =
    source === "model" || source === "streamed"
      ? { id: "c", name: tool, arguments: source === "streamed" ? { [EFFECT_PROGRESS]: "working" } : {} }
      : { id: "d", name: "delegate", arguments: { mode: source, tool, args: {} } };
  await json("POST", `/threads/${threadId}/messages`, { content: "go", script: [{ toolCalls: [call] }, { text: "done" }] }).catch(() => undefined);
  return { target: call.id === "c" ? "c" : `d.${source}1`, visible: call.id };
}

/** Runs one cell end to end and judges it. */
export async function runCell(cls: EffectClass, point: Point, source: Source): Promise<CellResult> {
  const threadId = await createThread({ agent: "guarantees" });
  const target = source === "model" || source === "direct" || source === "streamed" ? "c" : `d.${source}1`;
  const plan: PlannedCrash[] = point === "second_crash" ? [{ point: "after_effect", callId: target }, { point: "recovering", callId: target }] : [{ point, callId: target }];
  planCrashes(threadId, plan);
  const { visible } = await start(threadId, cls, source);
  const problems: string[] = [];
  const want = expected(cls, point, source);
  // A direct call cut before its row left nothing to finish (its caller got the error): no alarm needed.
  if (want.outcome !== "never ran" && !(await waitForAlarm(threadId))) problems.push(`no alarm recovered the thread (fired: ${firedCrashes(threadId).join(", ") || "none"})`);
  let rest = await waitAtRest(threadId);
  const parkedEvents = (await eventsOf(threadId)).filter((e) => e.type === "tool_call_parked" && (e.data as { callId: string }).callId === target).length;
  if ((await settleParked(threadId)) > 0) rest = await waitAtRest(threadId);
  if (rest) problems.push(rest);
  const { runs } = await effectRuns(threadId, target);
  const record = (await callsOf(threadId)).find((c) => c.callId === target);
  const reconciled = record?.result?.result?.includes('"reconciled":true') === true;
  const observed =
    parkedEvents > 0 ? "parked" : reconciled ? "reconciled" : runs === 2 ? "re-run" : runs === 1 ? "ran once" : runs === 0 && !record ? "never ran" : `${runs} runs`;
  const writeTwice = !MAY_REPEAT.has(cls) && runs >= 2;
  const notOne = await callsWithoutOneResult(threadId);
  if (source === "streamed") {
    // Announced while its arguments streamed: its tool_call_started comes before the step's model_step.
    const events = await eventsOf(threadId);
    const startedAt = events.findIndex((e) => e.type === "tool_call_started" && (e.data as { callId: string }).callId === target);
    const stepAt = events.findIndex((e) => e.type === "model_step");
    if (!(startedAt >= 0 && stepAt >= 0 && startedAt < stepAt)) problems.push("the call was not announced while its arguments streamed");
  }
  if (visible) {
    const toolMessages = (await messagesOf(threadId)).filter((m) => m.toolCallId === visible).length;
    if (toolMessages !== 1) problems.push(`${toolMessages} tool messages for ${visible}`);
    const info = (await json("GET", `/threads/${threadId}`)).body;
    if (info.lastTurn?.status !== "completed") problems.push(`turn ${info.lastTurn?.status ?? "none"}`);
  }
  if (observed !== want.outcome || runs !== want.runs) problems.push(`expected ${want.outcome} with ${want.runs} run(s)`);
  problems.push(...notOne);
  return {
    cls,
    point,
    source,
    expected: want.outcome,
    observed,
    runs,
    writeTwice,
    callsWithoutOneResult: notOne.length,
    ok: problems.length === 0 && !writeTwice,
    detail: `${observed}, ${runs} run(s), status ${record?.status ?? "none"}${problems.length ? `; ${problems.join("; ")}` : ""}`,
  };
}

/** Renders one table per source, a row per effect class. */
export function render(results: CellResult[]): string {
  const width = 26;
  const out: string[] = [];
  for (const source of SOURCES) {
    const points = POINTS.filter((p) => results.some((c) => c.source === source && c.point === p));
    if (points.length === 0) continue;
    const head = [`${source} calls`.padEnd(width), ...points.map((p) => p.padEnd(18))].join(" | ");
    out.push(head, "-".repeat(head.length));
    for (const cls of Object.keys(CLASSES) as EffectClass[]) {
      out.push(
        [
          cls.padEnd(width),
          ...points.map((p) => {
            const c = results.find((x) => x.cls === cls && x.point === p && x.source === source);
            return (c ? `${c.ok ? "ok" : "FAIL"} ${c.observed}` : "-").padEnd(18);
          }),
        ].join(" | "),
      );
    }
    out.push("");
  }
  return out.join("\n");
}

/** The first half of the closing line. */
export function summary(results: CellResult[]): string {
  const good = results.filter((c) => c.ok).length;
  const twice = results.filter((c) => c.writeTwice).length;
  const notOne = results.reduce((n, c) => n + c.callsWithoutOneResult, 0);
  return `crash-matrix: ${good}/${results.length} cells as specified, ${twice} writes run twice, ${notOne} calls without exactly one result`;
}
