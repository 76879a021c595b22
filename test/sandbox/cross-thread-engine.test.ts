/**
 * Runs of different threads on the isolate's one QuickJS engine (src/sandbox/turns.ts): while one
 * thread's hostile run holds the engine, breaks it or has it dropped, other threads' ordinary runs
 * start and wait their turn. Each must end as it would alone, with its value, and go on as its own
 * thread: its host calls do its thread's I/O, and its thread's request completes. Each Durable
 * Object waits for another's signal on timers of its own (`until`), never on a promise the other
 * resolves, so the test itself hands nothing from one thread's I/O context to another.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, stubOf } from "../helpers.js";
import { fullScale, within } from "./bounds.js";

/** Spins about `ms` of CPU synchronously through instrumented loops (so it yields). */
const SPIN = "const spin = (ms) => { const t = Date.now(); let x = 0; for (let i = 0; i < 5e6 && Date.now() - t < ms; i++) x = (x + i) % 1009; return x; };";

/** An ordinary run: recursion, strings and JSON, a yield or two, and a host call to its thread's storage. */
const VICTIM = `${SPIN}
import { io } from "host";
const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));
export default async () => { spin(30); const stored = await io(); return JSON.stringify({ f: fib(20), stored }) + ":" + "ab".repeat(3); }`;
const VICTIM_VALUE = '{"f":6765,"stored":"mine"}:ababab';

/** {@link VICTIM} that says when its code begins (`held`). */
const SAYS_BEGUN = VICTIM.replace('import { io } from "host";', 'import { held, io } from "host";').replace("export default async () => {", "export default async () => { held();");

/** Longest a victim may take here (its wait for the attack included) before it counts as hung. */
const HUNG_MS = within(20_000);

/** Signals between threads: set in one Durable Object, read by polling in another. */
const signals = new Set<string>();

/** Each run's outcome as its thread saw it, kept for a run whose thread's request never completes. */
const outcomes = new Map<string, unknown>();

/**
 * What the runs did, in the order they did it (one isolate, one thread of JavaScript): `name` when
 * its code called `held`, `name:queued` once its run was started (waiting its turn, if the engine
 * was held), `name:finished` when its code called `finished`.
 */
const steps: string[] = [];

/** When each run was started and when it ended, by the clock of its thread (one isolate's clock). */
const startedAt = new Map<string, number>();
const endedAt = new Map<string, number>();

async function until(signal: string): Promise<void> {
  for (let i = 0; i < 6000 && !signals.has(signal); i++) await new Promise((r) => setTimeout(r, 5));
  if (!signals.has(signal)) throw new Error(`no ${signal} signal`);
}

/** `work`, or `hung` (with the run's outcome, if it had one) when it does not complete within `ms`. */
const bounded = <T>(work: Promise<T>, name = "", ms = HUNG_MS): Promise<T | { status: "hung"; run: unknown }> =>
  Promise.race([work, new Promise<{ status: "hung"; run: unknown }>((r) => setTimeout(() => r({ status: "hung", run: outcomes.get(name) ?? "none" }), ms))]);

/** Runs `source` in a thread of its own once `after` is signalled; `host.held` signals `name`. */
async function runIn(name: string, source: string, options: { timeoutMs?: number; after?: string; delayMs?: number; nested?: string; cancelAfterMs?: number } = {}): Promise<any> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../../src/run/state.js");
    const state = createThreadState(instance.world, { callId: `call_${name}`, tool: instance.world.catalog.get("run_code") }, null);
    if (options.after) await until(options.after);
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const storage = instance.ctx.storage as DurableObjectStorage;
    const imports = {
      host: {
        held: () => {
          signals.add(name);
          steps.push(name);
        },
        finished: () => void steps.push(`${name}:finished`),
        // Returns once every run named has been started: they wait for the engine this run holds.
        queued: async (...names: string[]) => {
          for (const other of names) await until(`${other}:queued`);
        },
        // The thread's own storage: written and read back during the run.
        io: async () => {
          await storage.put("cross-thread", "mine");
          return storage.get("cross-thread");
        },
        // A run of the same thread started by the run's host call: it shares the holder's turn.
        nested: async () => (await state.runCode(options.nested!, { sandbox: "quickjs", timeoutMs: 500 }).result).status,
      },
    };
    startedAt.set(name, Date.now());
    const handle = state.runCode(source, { sandbox: "quickjs", timeoutMs: options.timeoutMs ?? 30_000, imports });
    // runCode asks for the engine before it returns: from here the run holds it or waits its turn.
    signals.add(`${name}:queued`);
    steps.push(`${name}:queued`);
    // As stop.test.ts stops a run: cancelled a while after its code began (it signals its own name).
    const cancelAfterMs = options.cancelAfterMs;
    if (cancelAfterMs !== undefined) void until(name).then(() => setTimeout(() => handle.cancel(), cancelAfterMs));
    const out = await handle.result;
    endedAt.set(name, Date.now());
    outcomes.set(name, out);
    // After the run, still the thread's own I/O context: its storage answers.
    await storage.put("after-run", out.status);
    return out;
  });
}

/** The victim ended as it would alone, after waiting at least `waitedMs` for the attacker's turn. */
function expectWell(victim: any, waitedMs: number): void {
  expect(victim, JSON.stringify(victim).slice(0, 500)).toMatchObject({ status: "success", value: VICTIM_VALUE });
  // Its duration counts from the run's start, its wait included: it did wait for the engine.
  expect(victim.durationMs).toBeGreaterThan(waitedMs);
}

const LOOP = `import { held } from "host";
export default () => { held(); let x = 0; for (;;) x++; }`;

describe("one thread's run on the QuickJS engine never fails another thread's", () => {
  it("runs that start while an attacker's CPU loop holds the engine, as its deadline drops it, and after, all end well", async () => {
    const attack = runIn("loop", LOOP, { timeoutMs: 1500 });
    const victims = await Promise.all([
      bounded(runIn("early", VICTIM, { after: "loop" }), "early"),
      bounded(runIn("at-deadline", VICTIM, { after: "loop", delayMs: 1450 }), "at-deadline"),
      bounded(runIn("just-after", VICTIM, { after: "loop", delayMs: 1520 }), "just-after"),
    ]);
    for (const victim of victims) expectWell(victim, 0);
    // The first waited for the engine: it ended after the attack's 1.5 s deadline, counted from the
    // attack's start (its own duration depends on how long the attack took to signal, on a loaded machine).
    expect(endedAt.get("early")! - startedAt.get("loop")!).toBeGreaterThanOrEqual(1500);
    expect(await bounded(attack)).toMatchObject({ status: "timeout" });
  }, 120_000);

  // Seconds each, beside the other attacks: `npm run sandbox` runs them.
  it.runIf(fullScale())("a run waiting while the attacker fails inside the engine (recursion past V8's stack) ends well on a fresh one", async () => {
    const attack = runIn(
      "proxy",
      `${SPIN}
import { held } from "host";
export default () => { held(); spin(300); let depth = 0; const h = { get(t, k) { depth++; return Reflect.get(t, k); } }; let o = { get v() { spin(50); return depth; } }; for (let i = 0; i < 100000; i++) o = new Proxy(o, h); try { return o.v; } catch (e) { return String(e) + " " + depth; } }`,
    );
    const victim = await bounded(runIn("after-proxy", VICTIM, { after: "proxy" }), "after-proxy");
    expectWell(victim, 100);
    expect((await bounded(attack)).status).not.toBe("hung");
  }, 120_000);

  // Seconds each, beside the other attacks: `npm run sandbox` runs them.
  it.runIf(fullScale())("a run waiting while the attacker fills the heap to its maximum and spins ends well", async () => {
    const attack = runIn(
      "heap",
      `${SPIN}
import { held } from "host";
export default () => { held(); const keep = []; try { for (;;) keep.push(new Array(1e5).fill(1.5)); } catch (e) { } keep.pop(); keep.pop(); spin(300); return keep.length; }`,
    );
    const victim = await bounded(runIn("after-heap", VICTIM, { after: "heap" }), "after-heap");
    expectWell(victim, 100);
    expect((await bounded(attack)).status).not.toBe("hung");
  }, 120_000);

  it("runs of two threads waiting while the attacker's nested run drops the engine under its turn both end well", async () => {
    // The attacker goes on only once both runs wait for the engine (by order, not by time: on a
    // loaded machine they started after its nested run had ended, and waited less than its spin).
    const attack = runIn(
      "nested",
      `${SPIN}
import { finished, held, nested, queued } from "host";
export default async () => { held(); await queued("first", "second"); const inner = await nested(); spin(200); finished(); return inner; }`,
      { nested: "export default () => { let x = 0; for (;;) x++; }" },
    );
    const victims = await Promise.all([bounded(runIn("first", SAYS_BEGUN, { after: "nested" }), "first"), bounded(runIn("second", SAYS_BEGUN, { after: "nested", delayMs: 20 }), "second")]);
    for (const victim of victims) expectWell(victim, 0);
    expect(await bounded(attack)).toMatchObject({ status: "success", value: "timeout" });
    // Both waited from before the nested run began until the attacker's last statement, then began.
    const seen = steps.filter((step) => /^(nested|first|second)(:|$)/.test(step));
    expect([seen.slice(0, 2), seen.slice(2, 4).sort(), seen[4], seen.slice(5).sort()]).toEqual([["nested:queued", "nested"], ["first:queued", "second:queued"], "nested:finished", ["first", "second"]]);
  }, 120_000);

  it("a run that waited for the attacker, then is cancelled as a stop cancels one, ends cancelled", async () => {
    const attack = runIn("for-stop", LOOP, { timeoutMs: 1000 });
    const working = `import { held } from "host";
export default async () => { held(); let n = 0; for (;;) { for (let i = 0; i < 20000; i++) n = (n + i) | 0; await new Promise((r) => setTimeout(r, 1)); } }`;
    const victim = await bounded(runIn("stopped", working, { after: "for-stop", cancelAfterMs: 100, timeoutMs: 60_000 }), "stopped");
    expect(victim, JSON.stringify(victim).slice(0, 500)).toMatchObject({ status: "cancelled", error: "the run was cancelled" });
    expect(victim.durationMs).toBeGreaterThan(500);
    expect(await bounded(attack)).toMatchObject({ status: "timeout" });
  }, 120_000);

  it("a thread's run_code call that waited for another thread's run succeeds, its tool calls included, and its turn ends", async () => {
    const attack = runIn("for-call", LOOP, { timeoutMs: 1000 });
    await until("for-call");
    const id = await createThread({ agent: "sandboxed" });
    const source = `import { record_call } from "tools";\nexport default async () => { const r = await record_call({ n: 41 }); return r.n + 1; }`;
    await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [{ toolCalls: [{ id: "code", name: "run_code", arguments: { source, sandbox: "quickjs", timeoutMs: 30_000 } }] }, { text: "done" }],
    });
    expect(await bounded(stubOf(id).waitIdle())).toEqual({ ok: true, value: null });
    const call = (await callsOf(id)).find((c) => c.callId === "code");
    expect(call, JSON.stringify(call)).toMatchObject({ status: "succeeded", result: { status: "success", result: "42" } });
    expect(await bounded(attack)).toMatchObject({ status: "timeout" });
  }, 120_000);

  it("a run whose thread's Durable Object is aborted while it holds the engine does not hold it for good: another thread's run ends well", async () => {
    const id = await createThread();
    // The attacker's run holds the engine; its thread is aborted mid-run (a restart, a deletion), so it never lets go.
    await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, { callId: "call_aborted", tool: instance.world.catalog.get("run_code") }, null);
      void state.runCode(LOOP, { sandbox: "quickjs", timeoutMs: 1000, imports: { host: { held: () => void signals.add("aborted") } } }).result.catch(() => undefined);
      await until("aborted");
    });
    await inThread(id, (instance: any) => instance.ctx.abort("restart while its run holds the engine")).catch(() => undefined);
    // Past the attacker's deadline and the grace (11 s), well before a waiter's own bound (60 s).
    const victim = await bounded(runIn("after-abort", VICTIM), "after-abort", within(40_000));
    expectWell(victim, 0);
    expect(victim.durationMs).toBeLessThan(30_000);
  }, 120_000);
});
