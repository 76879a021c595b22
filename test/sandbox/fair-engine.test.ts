/**
 * Turns on the isolate's one QuickJS engine are fair between users (src/sandbox/turns.ts): one
 * user's runs that hold the engine while they only wait (a sleep, a slow tool) and queue behind
 * each other make another user's run wait for the turn in progress only, not for all of them. As
 * in cross-thread-engine.test.ts, each Durable Object learns of another's run by polling shared
 * state on timers of its own, never through a promise the other resolves.
 */
import { describe, expect, it } from "vitest";
import { inThread, json, type TestUser } from "../helpers.js";
import { codeState } from "./code-state.js";

/** When each run's code began (epoch ms), by name: the order the engine was handed on. */
const started = new Map<string, number>();

async function until(name: string): Promise<void> {
  for (let i = 0; i < 6000 && !started.has(name); i++) await new Promise((r) => setTimeout(r, 5));
  if (!started.has(name)) throw new Error(`${name} never started`);
}

/** A run that only waits: it holds the engine for `ms` while doing nothing on it. */
const sleeper = (ms: number) => `import { began } from "host";
export default async () => { began(); await new Promise((r) => setTimeout(r, ${ms})); return "slept"; }`;

const QUICK = `import { began } from "host";
export default () => { began(); return "quick"; }`;

/** Runs `source` in a new thread of `user`, `delayMs` after the run `after` began. */
async function runAs(user: TestUser, name: string, source: string, options: { after?: string; delayMs?: number } = {}): Promise<any> {
  const created = await json<{ threadId: string }>("POST", "/threads", {}, user);
  expect(created.status).toBe(201);
  return inThread(created.body.threadId, async (instance: any) => {
    const state = await codeState(instance, `call_${name}`);
    if (options.after) await until(options.after);
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const imports = { host: { began: () => void started.set(name, Date.now()) } };
    return state.runCode(source, { sandbox: "quickjs", timeoutMs: 30_000, imports }).result;
  });
}

const SLEEP_MS = 1500;

describe("turns on the QuickJS engine are fair between users", () => {
  it("a user's run started behind another user's two sleeping runs gets the engine after the first of them, not after both", async () => {
    const first = runAs("alice", "alice-1", sleeper(SLEEP_MS));
    // Queued behind alice-1 at once; bob's run comes later, behind both.
    const second = runAs("alice", "alice-2", sleeper(SLEEP_MS), { after: "alice-1" });
    const other = runAs("bob", "bob", QUICK, { after: "alice-1", delayMs: 300 });
    const [a1, a2, b] = await Promise.all([first, second, other]);
    for (const [out, value] of [[a1, "slept"], [a2, "slept"], [b, "quick"]] as const) expect(out, JSON.stringify(out)).toMatchObject({ status: "success", value });
    const at = (name: string) => started.get(name)! - started.get("alice-1")!;
    // bob's run waited for alice's first run to end, then went ahead of her second.
    expect(at("bob"), `bob began ${at("bob")} ms and alice-2 ${at("alice-2")} ms after alice-1`).toBeLessThan(at("alice-2"));
    expect(at("bob")).toBeGreaterThanOrEqual(SLEEP_MS - 5);
  }, 60_000);
});
