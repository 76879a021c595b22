/**
 * Interleaving fuzz: random sequences of posts, approvals, denials, settlements, stops, crashes
 * (a real `ctx.abort()`), alarms and reconnects against one thread, run without waiting for the
 * thread between steps. Afterwards every waiting call is decided, and the thread is judged:
 * every call id has exactly one result (one final status, one `tool_call_finished`, one tool
 * message in the history), the history is valid for providers (each tool call answered once,
 * right after its step, and accepted by each provider's wire validator), and replay from any
 * cursor has no gap and no duplicate.
 * @module
 */
import fc from "fast-check";
import type { ModelTool } from "../../src/models/model.js";
import type { Message } from "../../src/protocol.js";
import { type FuzzTarget, sendJson } from "./target.js";
import { wireProblems } from "./wire.js";

type Op =
  | { kind: "post"; steps: Array<Array<{ name: string; arguments: unknown }>> }
  | { kind: "approve" | "deny" | "settle" | "stop" | "crash" | "alarm" | "reconnect" | "direct"; pick: number };

const CALL = fc.oneof(
  fc.record({ name: fc.constant("needs_ok"), arguments: fc.record({ amount: fc.constantFrom(5, 500) }) }),
  fc.record({ name: fc.constant("record_call"), arguments: fc.constant({}) }),
  fc.record({ name: fc.constant("effect_read"), arguments: fc.constant({}) }),
  fc.record({ name: fc.constant("effect_write"), arguments: fc.constant({}) }),
  fc.record({ name: fc.constant("effect_reconcile_final"), arguments: fc.constant({}) }),
  fc.record({ name: fc.constant("slow_read"), arguments: fc.record({ ms: fc.integer({ min: 0, max: 30 }) }) }),
  fc.record({ name: fc.constantFrom("no_such_tool", "needs_ok"), arguments: fc.constantFrom("{bad json", { amount: "x" }) as fc.Arbitrary<unknown> }),
);

const OP: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("post" as const), steps: fc.array(fc.array(CALL, { minLength: 1, maxLength: 3 }), { minLength: 0, maxLength: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("approve" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deny" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("settle" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("stop" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("crash" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("alarm" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reconnect" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("direct" as const), pick: fc.nat() }) },
);

/** A run of ops; `together` marks ops sent at the same moment as the one before. */
export const INTERLEAVING = fc.array(fc.tuple(OP, fc.boolean()), { minLength: 2, maxLength: 8 });

/** What one interleaving broke (empty when nothing). */
export interface Verdict {
  serverErrors: string[];
  brokenHistory: string[];
  notOneResult: string[];
  crashedThread: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Call = { callId: string; toolName: string; status: string };

/** Runs one op; answers the HTTP statuses it saw. */
async function apply(target: FuzzTarget, id: string, op: Op, crashed: { yes: boolean }): Promise<number[]> {
  const json = <T = any>(method: string, path: string, body?: unknown) => sendJson<T>(target, method, path, body);
  /** Ids of the thread's calls in `status`, and the HTTP status of the listing. */
  const waiting = async (status: string): Promise<[string[], number]> => {
    const res = await json<{ calls?: Call[] }>("GET", `/threads/${id}/calls`);
    return [(res.body.calls ?? []).filter((c) => c.status === status).map((c) => c.callId), res.status];
  };
  switch (op.kind) {
    case "post": {
      const script = op.steps.map((calls) => ({ toolCalls: calls }));
      return [(await json("POST", `/threads/${id}/messages`, { content: "go", script: [...script, { text: "done" }] })).status];
    }
    case "approve":
    case "deny": {
      const [ids, listed] = await waiting("awaiting_approval");
      const callId = ids[op.pick % Math.max(1, ids.length)] ?? "none";
      return [listed, (await json("POST", `/threads/${id}/calls/${callId}/${op.kind}`, {})).status];
    }
    case "settle": {
      const [ids, listed] = await waiting("parked");
      const callId = ids[op.pick % Math.max(1, ids.length)] ?? "none";
      const body = [{ outcome: "retry" }, { outcome: "failed", error: "no" }, { outcome: "succeeded", result: "ok" }][op.pick % 3];
      return [listed, (await json("POST", `/threads/${id}/calls/${callId}/settle`, body)).status];
    }
    case "stop":
      return [(await json("POST", `/threads/${id}/stop`, {})).status];
    case "crash":
      crashed.yes = true;
      await target.crash(id);
      return [];
    case "alarm":
      await target.alarm(id);
      return [];
    case "reconnect": {
      const last = ((await json("GET", `/threads/${id}`)).body.lastSeq as number | undefined) ?? 0;
      const since = op.pick % (last + 1);
      // A crash drops every socket; the client reconnects from the same cursor.
      const frames = await target.events(id, since).catch((e: Error) => (crashed.yes ? target.events(id, since) : Promise.reject(e)));
      const seqs = frames.map((f) => f.seq);
      const want = Array.from({ length: seqs.length }, (_, i) => since + 1 + i);
      if (JSON.stringify(seqs) !== JSON.stringify(want)) throw new Error(`replay from ${since}: got ${seqs.join(",")}`);
      return [];
    }
    case "direct":
      return [(await json("POST", "/v1/tools/effect_read", { input: {}, sessionId: id })).status];
  }
}

/** The thread's call records. */
async function callsOf(target: FuzzTarget, id: string): Promise<Call[]> {
  return (await sendJson<{ calls?: Call[] }>(target, "GET", `/threads/${id}/calls`)).body.calls ?? [];
}

/** Decides every waiting call and lets the thread finish, with alarms as a restart would need. */
async function settleAll(target: FuzzTarget, id: string): Promise<void> {
  const json = (method: string, path: string, body?: unknown) => sendJson(target, method, path, body);
  for (let round = 0; round < 60; round++) {
    await target.alarm(id);
    await target.waitIdle(id);
    const calls = await callsOf(target, id);
    for (const c of calls.filter((c) => c.status === "awaiting_approval")) await json("POST", `/threads/${id}/calls/${c.callId}/approve`, {});
    for (const c of calls.filter((c) => c.status === "parked")) await json("POST", `/threads/${id}/calls/${c.callId}/settle`, { outcome: "failed", error: "settled by fuzz" });
    await target.waitIdle(id);
    const info = (await json("GET", `/threads/${id}`)).body;
    const open = (await callsOf(target, id)).some((c) => ["queued", "started", "awaiting_approval", "parked"].includes(c.status));
    if (info.status === "idle" && !open) return;
    await sleep(5);
  }
}

/** The tools a thread of the fuzz's agent offers, as a model request carries them. */
async function toolsOf(target: FuzzTarget): Promise<ModelTool[]> {
  const listed = await sendJson<{ tools: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> }>(target, "GET", "/v1/tools");
  return listed.body.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

/** Runs one interleaving on a new thread and judges it. */
export async function runInterleaving(target: FuzzTarget, ops: Array<[Op, boolean]>): Promise<Verdict> {
  const json = <T = any>(method: string, path: string, body?: unknown) => sendJson<T>(target, method, path, body);
  const verdict: Verdict = { serverErrors: [], brokenHistory: [], notOneResult: [], crashedThread: [] };
  const created = await json<{ threadId: string }>("POST", "/threads", { agent: "guarantees" });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.threadId;
  const crashed = { yes: false };
  for (let i = 0; i < ops.length; ) {
    const batch = [ops[i]![0]];
    for (i += 1; i < ops.length && ops[i]![1]; i++) batch.push(ops[i]![0]);
    const failures: string[] = [];
    const statuses = (
      await Promise.all(
        batch.map((op) =>
          apply(target, id, op, crashed).catch((e: Error) => {
            if (e.message.startsWith("replay")) return Promise.reject(e);
            failures.push(`${op.kind}: ${e.message.slice(0, 200)}`);
            return [599];
          }),
        ),
      )
    ).flat();
    verdict.serverErrors.push(...failures);
    // A request cut by an injected crash may answer 503 thread_restarted; anything else 5xx is a fault.
    for (const s of statuses) if (s >= 500 && !(s === 503 && crashed.yes)) verdict.serverErrors.push(`${batch.map((b) => b.kind).join("+")} -> ${s}`);
  }
  await settleAll(target, id);
  const info = await json("GET", `/threads/${id}`);
  if (info.status !== 200 || info.body.status !== "idle") verdict.crashedThread.push(`${id}: ${info.status} ${JSON.stringify(info.body).slice(0, 200)}`);
  const calls = await callsOf(target, id);
  const events = await target.events(id);
  const seqs = events.map((e) => e.seq);
  if (seqs.some((s, i) => s !== i + 1)) verdict.brokenHistory.push(`${id}: event seqs not 1..n`);
  const messages = (await json("GET", `/threads/${id}/messages?limit=1000&includeSilent=true`)).body.messages as Message[];
  // Valid for providers: every call of an assistant message is answered once, before the next
  // assistant or user message.
  for (let m = 0; m < messages.length; m++) {
    const asked = messages[m]!.toolCalls?.map((c) => c.id) ?? [];
    if (asked.length === 0) continue;
    const answers: string[] = [];
    for (let n = m + 1; n < messages.length && messages[n]!.role === "tool"; n++) answers.push(messages[n]!.toolCallId!);
    if (JSON.stringify([...answers].sort()) !== JSON.stringify([...asked].sort())) verdict.brokenHistory.push(`${id}: step at message ${m} asked ${asked} and got ${answers}`);
  }
  // Valid for each provider's wire format, as its own request body would carry the history.
  for (const problem of await wireProblems(messages, await toolsOf(target))) verdict.brokenHistory.push(`${id}: ${problem}`);
  for (const call of calls) {
    const finished = events.filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === call.callId).length;
    const final = ["succeeded", "failed", "denied", "aborted"].includes(call.status);
    if (!final || finished !== 1) verdict.notOneResult.push(`${id}: ${call.callId} (${call.toolName}) is ${call.status} with ${finished} results`);
  }
  // Free the user's thread slot (the per-user limit would stop a long run).
  await json("DELETE", `/threads/${id}`);
  return verdict;
}
