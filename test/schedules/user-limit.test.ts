/**
 * The per-user limit of schedules (`WEFT_MAX_SCHEDULES_PER_USER`): a user's active schedules over
 * all their threads are counted in their account, a schedule past the limit is refused 409
 * `too_many_schedules` on every way one is made (HTTP, a tool's `state.schedule`) with nothing
 * stored, and a cancel, a schedule out of occurrences or a deleted thread gives its slots back.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits.js";
import { createThreadState } from "../../src/run/state.js";
import { eventsStoredIn, inThread, until } from "../helpers.js";
import { accountOfUser, freshUser, send } from "../usage/users.js";
import { MINUTE, T0, deliverAlarm, setClock } from "./helpers.js";

afterEach(() => setClock(null));

const LIMIT = LIMITS.schedulesPerUser.default;
/** A thread id no thread has: the account's row of schedules made elsewhere (the user's other threads). */
const ELSEWHERE = "f".repeat(64);

/** The user's active schedules as their account counts them. */
function counted(userId: string): Promise<number> {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => number) => Promise<number>;
  return run(ns.get(ns.idFromName(userId)), (instance) => (instance.ctx.storage.sql as SqlStorage).exec<{ n: number }>("SELECT COALESCE(SUM(active), 0) AS n FROM schedule_counts").one().n);
}

/** A user of their own with two threads, whose account counts `elsewhere` schedules in other threads. */
async function userNearLimit(elsewhere: number) {
  const { userId, token } = await freshUser("schedules");
  const a = (await send(token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
  const b = (await send(token, "POST", "/threads", { agent: "guarantees" })).body.threadId as string;
  const filled = await accountOfUser(userId).countSchedules(ELSEWHERE, elsewhere, Number.MAX_SAFE_INTEGER);
  expect(filled.ok).toBe(true);
  const post = (thread: string, body: unknown = { every: "1h", target: { tool: "effect_read", input: {} } }) => send(token, "POST", `/threads/${thread}/schedules`, body);
  return { userId, token, a, b, post };
}

const schedulesIn = (thread: string) => inThread(thread, (i) => i.schedules.page().schedules as { scheduleId: string; status: string }[]);

describe("the per-user limit of schedules", () => {
  it("counts a user's schedules over their threads and refuses one past the limit on every path, 409 with the limit and nothing stored", async () => {
    const { userId, a, b, post } = await userNearLimit(LIMIT - 2);
    expect((await post(a)).status).toBe(201);
    expect((await post(b)).status).toBe(201);
    expect(await counted(userId)).toBe(LIMIT);
    const refused = await post(a);
    expect(refused).toMatchObject({ status: 409, body: { error: { code: "too_many_schedules", details: { limit: LIMIT, scope: "user", path: [] } } } });
    expect(refused.body.error.message).toContain("WEFT_MAX_SCHEDULES_PER_USER");
    // From a tool: the same refusal.
    const fromTool = await inThread(b, async (i) => {
      const state = createThreadState(i.world, undefined, null);
      return state.schedule({ every: "1h", target: { tool: "effect_read", input: {} } }).then(
        () => "made",
        (e: { code: string; details: unknown }) => [e.code, e.details],
      );
    });
    expect(fromTool).toEqual(["too_many_schedules", { limit: LIMIT, scope: "user", path: [] }]);
    expect((await schedulesIn(a)).length).toBe(1);
    expect((await schedulesIn(b)).length).toBe(1);
    expect(await inThread(a, (i) => eventsStoredIn(i.ctx.storage.sql).filter((e) => e.type === "schedule_created").length)).toBe(1);
    expect(await counted(userId)).toBe(LIMIT);
  });

  it("one slot left and five creates at once over two threads: exactly one is made", async () => {
    const { userId, a, b, post } = await userNearLimit(LIMIT - 1);
    const answers = await Promise.all([post(a), post(b), post(a), post(b), post(a)]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await schedulesIn(a)).length + (await schedulesIn(b)).length).toBe(1);
    expect(await counted(userId)).toBe(LIMIT);
  });

  it("a cancel, a schedule out of occurrences and a deleted thread give their slots back", async () => {
    const { userId, token, a, b, post } = await userNearLimit(LIMIT - 3);
    setClock(T0);
    const cancelled = (await post(a)).body.scheduleId as string;
    const once = await post(a, { at: T0 + MINUTE, target: { tool: "effect_read", input: {} } });
    expect(once.status).toBe(201);
    expect((await post(b)).status).toBe(201);
    expect((await post(b)).status).toBe(409);
    // Cancelled: its slot is free again.
    expect((await send(token, "DELETE", `/threads/${a}/schedules/${cancelled}`)).status).toBe(200);
    await until(async () => (await counted(userId)) === LIMIT - 1, "the account to count the cancel");
    expect((await post(b)).status).toBe(201);
    expect((await post(b)).status).toBe(409);
    // The `at` schedule fires once and is done: its slot is free again.
    setClock(T0 + MINUTE);
    await deliverAlarm(a);
    expect((await schedulesIn(a)).find((s) => s.scheduleId === once.body.scheduleId)?.status).toBe("done");
    await until(async () => (await counted(userId)) === LIMIT - 1, "the account to count the finished schedule");
    expect((await post(b)).status).toBe(201);
    // Thread b deleted: its three schedules' slots are free again.
    expect((await send(token, "DELETE", `/threads/${b}`)).status).toBe(200);
    expect(await counted(userId)).toBe(LIMIT - 3);
    for (let n = 0; n < 3; n++) expect((await post(a)).status).toBe(201);
    expect((await post(a)).status).toBe(409);
  });
});
