/**
 * A console line is attributed to the thread whose work writes it (src/secrets/log-context.ts):
 * written in a thread's work, it passes that thread's log redactor alone; written outside any
 * (the Worker, a test body), every live thread's. Hostile review: a user whose threads each had a
 * thread env of their own (a distinct set of up to 1000 secrets each, past the isolate's automaton
 * budget, so searched one form at a time) gave every line any other user's thread logged a pass
 * through each of those sets: with 50 such threads, 261 ms for a 16 KiB line.
 */
import { evictDurableObject } from "cloudflare:test";
import { afterAll, expect, it } from "vitest";
import { ISOLATE_AUTOMATON_UNITS, automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { asThreadWork, logOwner } from "../../src/secrets/log-context.js";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { Redactor } from "../../src/secrets/redact.js";
import { inThread, json, rawStub } from "../helpers.js";

const made: string[] = [];
afterAll(async () => {
  // Their redactors and automata go with them, not into the next file's lines.
  for (const id of made) await evictDurableObject(rawStub(id));
});

/** `n` pseudo-random lowercase letters (a fixed seed: the same every run). */
function letters(n: number, seed: number): string {
  let s = seed >>> 0;
  let out = "";
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out += String.fromCharCode(97 + ((s >>> 16) % 26));
  }
  return out;
}

async function thread(as: "alice" | "bob", body: Record<string, unknown>): Promise<string> {
  const created = await json("POST", "/threads", body, as);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  made.push(created.body.threadId);
  return created.body.threadId;
}

/**
 * Runs `fn`, counting the passes of log redactors (they hold weft's credentials, which no thread's
 * redactor does) over a string holding `mark`: one a redactor a line went through.
 */
async function passesOver<T>(mark: string, fn: () => Promise<T>): Promise<{ passes: number; result: T }> {
  const content = Redactor.prototype.content;
  let passes = 0;
  Redactor.prototype.content = function <V>(this: Redactor, v: V): V {
    if (typeof v === "string" && v.includes(mark) && this.secrets.some((s) => s.name === "WEFT_JWT_SECRET")) passes++;
    return content.call(this, v) as V;
  };
  try {
    const result = await fn();
    return { passes, result };
  } finally {
    Redactor.prototype.content = content;
  }
}

it("a thread's work is carried into the promises, timers, storage calls, waitUntil and blockConcurrencyWhile work it starts, in workerd", async () => {
  const id = await thread("alice", {});
  const seen = await inThread(id, (instance) => {
    const source = instance.secrets;
    return asThreadWork(source, async () => {
      const owners: Record<string, unknown> = {};
      await Promise.resolve();
      owners.promise = logOwner();
      await new Promise<void>((resolve) => setTimeout(() => ((owners.setTimeout = logOwner()), resolve()), 1));
      await new Promise<void>((resolve) => queueMicrotask(() => ((owners.queueMicrotask = logOwner()), resolve())));
      instance.ctx.storage.sql.exec("SELECT 1");
      await instance.ctx.storage.get("nothing");
      owners.storage = logOwner();
      let waited!: Promise<void>;
      instance.ctx.waitUntil((waited = new Promise<void>((resolve) => setTimeout(() => ((owners.waitUntil = logOwner()), resolve()), 1))));
      await waited;
      await instance.ctx.blockConcurrencyWhile(async () => void (owners.blockConcurrencyWhile = logOwner()));
      return Object.fromEntries(Object.entries(owners).map(([k, v]) => [k, v === source]));
    });
  });
  expect(seen).toEqual({ promise: true, setTimeout: true, queueMicrotask: true, storage: true, waitUntil: true, blockConcurrencyWhile: true });
  // Its entries run as its work (an RPC method, the alarm), and the runtime's other handlers are wrapped the same way.
  const entered = await inThread(id, async (instance) => {
    const owners: unknown[] = [];
    const idle = instance.runner.idle;
    instance.runner.idle = () => (owners.push(logOwner()), Promise.resolve());
    const fired = instance.alarmClock.fired;
    instance.alarmClock.fired = () => (owners.push(logOwner()), fired.call(instance.alarmClock));
    try {
      await instance.waitIdle();
      await instance.alarm();
    } finally {
      instance.runner.idle = idle;
      instance.alarmClock.fired = fired;
    }
    const threadClass = Object.getPrototypeOf(Object.getPrototypeOf(instance));
    const handlers = ["fetch", "alarm", "webSocketMessage", "webSocketClose", "webSocketError", "callTool", "create"].filter((name) => Object.hasOwn(threadClass, name));
    return { entered: owners.map((o) => o === instance.secrets), outside: logOwner() === undefined, handlers };
  });
  expect(entered).toEqual({ entered: [true, true], outside: true, handlers: ["fetch", "alarm", "webSocketMessage", "webSocketClose", "webSocketError", "callTool", "create"] });
});

it("a line one user's thread logs passes its own log redactor only; a line outside any thread passes every thread's", async () => {
  const own = `alice-own-${crypto.randomUUID()}`;
  const others = `bob-secret-${crypto.randomUUID()}`;
  // Nobody's secret, in the line alice's tool logs: where it stands, the line's passes are counted.
  const mark = `mark-${crypto.randomUUID()}`;
  // bob: threads of thread envs of their own, each a distinct set of 999 secrets (past the
  // isolate's automaton budget: some of them are searched one form at a time), one holding the
  // secret alice's thread will log as plain text.
  const bobs = 5;
  for (let t = 0; t < bobs; t++) {
    const env = Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`B${i}`, { value: letters(200, 1e6 * (t + 1) + i), type: "secret" }]));
    if (t === 0) env.BOB_KEY = { value: others, type: "secret" };
    await thread("bob", { env });
  }
  expect(automatonUnitsHeld()).toBeGreaterThan(ISOLATE_AUTOMATON_UNITS - 200 * 1000);
  // alice: the canary agent's tool logs every canary value it reads; at the thread level here
  // CANARY_THREAD is her secret, CANARY_USER a text that happens to be bob's secret.
  const alice = await thread("alice", {
    agent: "canary",
    env: { CANARY_THREAD: { value: own, type: "secret" }, CANARY_USER: { value: others, type: "text" }, CANARY_PROMPT: { value: mark, type: "text" } },
  });
  const lines: string[] = [];
  const untap = tapLogs((_level, args) => lines.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ")));
  try {
    const { passes, result } = await passesOver(mark, () => json("POST", "/v1/tools/leak_secrets", { sessionId: alice, input: { mode: "echo" } }, "alice"));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const leaking = lines.find((l) => l.startsWith("leaking"));
    expect(leaking).toContain(mark);
    // Her own secret is hidden; bob's is not hers, and her line went through her redactor alone.
    expect(leaking).not.toContain(own);
    expect(leaking).toContain("[redacted]");
    expect(leaking).toContain(others);
    expect(passes).toBe(1);
    lines.length = 0;
    // Outside any thread's work, as the Worker's own lines: every thread's redactor, each once.
    const outside = await passesOver(mark, async () => console.log(`outside ${own} ${others} ${mark}`));
    expect(lines).toEqual([`outside [redacted] [redacted] ${mark}`]);
    expect(outside.passes).toBeGreaterThan(bobs);
  } finally {
    untap();
  }
});
