/**
 * Turns on the QuickJS engine (src/sandbox/turns.ts), below the executor: the bound of a wait, the
 * order of the queue, and a deadline that starts with the turn. The cases of two real runs at once
 * are in test/sandbox/hostile.ts (`npm run sandbox`).
 */
import { describe, expect, it } from "vitest";
import { Cancellation } from "../../src/sandbox/cancel.js";
import type { SandboxRequest } from "../../src/sandbox/executor.js";
import { RunSession } from "../../src/sandbox/session.js";
import { type EngineTurn, EngineTurns } from "../../src/sandbox/turns.js";
import { within } from "./bounds.js";

const request = (timeoutMs: number, owner?: string): SandboxRequest =>
  ({ timeoutMs, scope: "turns-test", ...(owner ? { owner } : {}), cancellation: new Cancellation(), imports: {}, maxLogBytes: 1024, maxResultBytes: 1024, fetchAllow: [] }) as unknown as SandboxRequest;

/**
 * The order in which runs get the engine when they come in the order of `names` (`a2` is user a's
 * second): the first finds it free and holds it until all the others came; each lets go at once.
 */
async function grantOrder(names: string[]): Promise<string[]> {
  const turns = new EngineTurns();
  const order: string[] = [];
  let allCame!: () => void;
  const came = new Promise<void>((resolve) => (allCame = resolve));
  const runs = names.map(async (name, i) => {
    const session = new RunSession(request(5_000, name.replace(/\d+$/, "")), "quickjs", 1, 60_000);
    const turn = await turns.take(session);
    order.push(name);
    if (i === 0) await came;
    session.end("success", undefined, 1);
    turn!.release();
  });
  allCame();
  await Promise.all(runs);
  return order;
}

describe("turns on the QuickJS engine", () => {
  it("a wait past its bound ends timeout saying the run never started, and the queue goes on in order", async () => {
    const turns = new EngineTurns();
    const first = new RunSession(request(5_000), "quickjs", 1, 60_000);
    const held = turns.take(first) as EngineTurn;
    first.begin();
    const late = new RunSession(request(5_000), "quickjs", 1, 50);
    const lateTurn = turns.take(late);
    const next = new RunSession(request(400), "quickjs", 1, 60_000);
    const nextTurn = turns.take(next);
    const out = await late.ended;
    expect(out.status).toBe("timeout");
    expect(out.error).toBe("the run waited 50 ms for the quickjs engine, busy with other runs of this isolate, and never started");
    expect(await lateTurn).toBeNull();
    // The next waiter waits on, and gets the engine only when the holder lets go.
    let granted = false;
    void Promise.resolve(nextTurn).then(() => (granted = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(granted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(next.closed).toBe(false);
    held.release();
    first.end("success", undefined, 1);
    const turn = await nextTurn;
    expect(turn).not.toBeNull();
    // Its own 400 ms deadline starts now, not when it began waiting.
    const begunAt = Date.now();
    next.begin();
    expect(next.deadline).toBeGreaterThanOrEqual(begunAt + 400);
    const ended = await next.ended;
    expect(ended.status).toBe("timeout");
    expect(ended.error).toBe("the run passed its 400 ms deadline");
    expect(Date.now() - begunAt).toBeGreaterThanOrEqual(390);
    turn!.release();
    // Free again: the next taker gets the engine at once.
    const free = turns.take(new RunSession(request(100), "quickjs", 1, 60_000));
    expect(free).not.toBeInstanceOf(Promise);
    (free as EngineTurn).release();
  });

  it("a run started under the holder's turn shares it only while the holder's run is open", async () => {
    const turns = new EngineTurns();
    const root = new RunSession(request(5_000), "quickjs", 1, 60_000);
    const held = turns.take(root) as EngineTurn;
    root.begin();
    const child = new RunSession(request(5_000), "quickjs", 1, 60_000);
    const shared = turns.within(held, () => turns.take(child));
    expect(shared).not.toBeInstanceOf(Promise);
    child.begin();
    root.end("success", undefined, 1);
    held.release();
    // The child outlived its starter: it still holds the engine, and what it starts now queues.
    const grandchild = new RunSession(request(5_000), "quickjs", 1, 60_000);
    const queued = turns.within(shared as EngineTurn, () => turns.take(grandchild));
    expect(queued).toBeInstanceOf(Promise);
    const outsider = turns.take(new RunSession(request(5_000), "quickjs", 1, 60_000));
    expect(outsider).toBeInstanceOf(Promise);
    (shared as EngineTurn).release();
    child.end("success", undefined, 1);
    const next = await queued;
    expect(next).not.toBeNull();
    grandchild.end("success", undefined, 1);
    next!.release();
    (await outsider)!.release();
  });

  it("a cancelled waiter leaves the queue at once", async () => {
    const turns = new EngineTurns();
    const first = new RunSession(request(5_000), "quickjs", 1, 60_000);
    const held = turns.take(first) as EngineTurn;
    first.begin();
    const waiter = new RunSession(request(5_000), "quickjs", 1, 60_000);
    const waiting = turns.take(waiter);
    const cancelledAt = performance.now();
    waiter.request.cancellation.cancel();
    expect((await waiter.ended).status).toBe("cancelled");
    expect(await waiting).toBeNull();
    // Before the run ahead ends (it ends only below): the bound is how prompt, the order is the proof.
    expect(performance.now() - cancelledAt).toBeLessThan(within(100));
    held.release();
    first.end("success", undefined, 1);
    const after = turns.take(new RunSession(request(100), "quickjs", 1, 60_000));
    expect(after).not.toBeInstanceOf(Promise);
    (after as EngineTurn).release();
  });

  it("runs take the engine round robin over their users, in order of arrival within a user", async () => {
    // b1 comes while a1 holds the engine and a2, a3 wait: a's turn is in progress, so b1 goes next.
    expect(await grantOrder(["a1", "a2", "a3", "b1", "b2"])).toEqual(["a1", "b1", "a2", "b2", "a3"]);
    // Three users: each waiting user once, in the order they came, before any goes again.
    expect(await grantOrder(["a1", "a2", "b1", "c1", "b2", "c2", "a3"])).toEqual(["a1", "b1", "c1", "a2", "b2", "c2", "a3"]);
    expect(await grantOrder(["a1", "a2", "a3"])).toEqual(["a1", "a2", "a3"]);
  });

  it("a user whose run just had the engine waits behind another user's run that comes during the next turn", async () => {
    const turns = new EngineTurns();
    const run = (owner: string) => new RunSession(request(5_000, owner), "quickjs", 1, 60_000);
    const b1 = run("b");
    const held = turns.take(b1) as EngineTurn;
    const [a1, a2] = [run("a"), run("a")];
    const [a1Turn, a2Turn] = [turns.take(a1), turns.take(a2)];
    b1.end("success", undefined, 1);
    held.release();
    const a1Held = (await a1Turn)!;
    // b's second run comes while a1 holds the engine: b's turn comes before a's second.
    const b2 = run("b");
    const b2Turn = turns.take(b2);
    a1.end("success", undefined, 1);
    a1Held.release();
    const next = await Promise.race([Promise.resolve(b2Turn).then((turn) => ({ name: "b2", turn })), Promise.resolve(a2Turn).then((turn) => ({ name: "a2", turn }))]);
    expect(next.name).toBe("b2");
    b2.end("success", undefined, 1);
    next.turn!.release();
    const a2Held = (await a2Turn)!;
    a2.end("success", undefined, 1);
    a2Held.release();
  });
});
