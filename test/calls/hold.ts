/**
 * Holding a thread where a stop can land outside a turn's execution: its next inbox admission, its
 * next storage flush, a direct write that keeps the loop in recovery. Gates are kept on
 * `globalThis` under a tag, since the thread's code runs in the test's isolate.
 */
import { callsOf, inThread, json, until } from "../helpers.js";

export type G = Record<string, any>;
/** The gates, by tag: `held` once reached, `open()` to go on. */
export const g = globalThis as unknown as G;

/**
 * Holds the thread's next inbox admission (createMessages outside any execution) whose messages
 * `match` until `g[tag].open()` is called; `g[tag].held` says it is held.
 */
export async function holdAdmission(id: string, tag: string, match: (contents: string[]) => boolean): Promise<void> {
  await inThread(id, (t) => {
    const w = t.world;
    const orig = w.createMessages.bind(w);
    const gate: G = { held: false };
    gate.promise = new Promise<void>((r) => (gate.open = r));
    g[tag] = gate;
    // `rest`: the admission's stop signal, which cuts the wait for its hooks.
    w.createMessages = async (execution: unknown, messages: Array<{ content: unknown }>, also?: () => void, ...rest: unknown[]) => {
      if (execution === null && !gate.used && match(messages.map((m) => String(m.content)))) {
        gate.used = true;
        gate.held = true;
        await gate.promise;
      }
      return orig(execution, messages, also, ...rest);
    };
  });
}

/** Holds the next `world.flush()` (the one startWithInbox awaits after the admission committed) until `g[tag].open()`. */
export async function holdNextFlush(id: string, tag: string): Promise<void> {
  await inThread(id, (t) => {
    const w = t.world;
    const flush = w.flush.bind(w);
    const gate: G = { held: false };
    gate.promise = new Promise<void>((r) => (gate.open = r));
    g[tag] = gate;
    w.flush = async () => {
      w.flush = flush;
      gate.held = true;
      await gate.promise;
      return flush();
    };
  });
}

/** Starts a direct slow write in thread `id` at rest and waits until it runs: the loop's recover() then waits on its lock. */
export async function slowDirectWrite(id: string, ms: number): Promise<{ done: Promise<unknown> }> {
  const direct = json("POST", "/v1/tools/slow_write", { input: { ms }, sessionId: id });
  await until(async () => (await callsOf(id)).some((c) => c.toolName === "slow_write" && c.status === "started"), "the direct write to run");
  return { done: direct };
}

export async function settle(id: string, status: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if ((await json("GET", `/threads/${id}`)).body.lastTurn?.status === status) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the last turn never ended ${status}`);
}
