/**
 * What the Durable Object keeps across a thread's lifetimes besides its tables: a request's
 * Idempotency-Key answer, the per-call-id lock, and the background runs a tool waits on. Work of a
 * deleted thread still waiting when the thread is made again on the same id reaches none of the new
 * thread's. Found by the second hostile review of the straggler fixes.
 */
import { expect, it } from "vitest";
import { inThread, json, keyed, until } from "../helpers.js";
import { keyedThread } from "../removal-helpers.js";

type Releases = { __approveRelease?: Record<string, () => void>; __oldRelease?: Record<string, () => void> };

it("a deleted lifetime's keyed request neither answers the new thread's Idempotency-Key nor holds its call's lock", async () => {
  const { id, again } = await keyedThread("straggler-idem");
  const key = crypto.randomUUID();
  const idemKey = `idem-${crypto.randomUUID()}`;
  const g = globalThis as unknown as Releases;
  const send = () => keyed("POST", "/v1/tools/approve_after_release", idemKey, { input: { key }, sessionId: id });
  const r1 = send();
  await until(() => inThread(id, () => g.__approveRelease?.[key] !== undefined), "the first request's predicate to wait");
  await inThread(id, () => void ((g.__oldRelease ??= {})[key] = g.__approveRelease![key]!));
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  await again();
  // The same request again, in the new thread: it claims the key and its call id (keyed by the Idempotency-Key).
  const r2 = send();
  await until(() => inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM idempotency").one().n === 1), "the second request to claim the key");
  await until(() => inThread(id, () => g.__approveRelease![key] !== g.__oldRelease![key]), "the second request's predicate to wait (not behind the first's lock)", 10_000);
  const whileR2Runs = await send();
  let replayed: { status: number; code: unknown } | undefined;
  try {
    await inThread(id, () => g.__oldRelease![key]!());
    expect((await r1).status).toBe(404);
    const third = await send();
    replayed = { status: third.status, code: third.body?.error?.code };
  } finally {
    await inThread(id, () => g.__approveRelease![key]!());
    await r2;
  }
  expect({ whileR2Runs: whileR2Runs.status, replayed }).toEqual({ whileR2Runs: 409, replayed: { status: 409, code: "idempotency_key_in_use" } });
}, 120_000);

it("a tool of a deleted thread waiting in state.runs.wait cannot read the re-created thread's background runs", async () => {
  const { id, again } = await keyedThread("straggler-runs");
  const child = (await json("POST", "/threads", { agent: "deletable" })).body.threadId as string;
  const childKey = crypto.randomUUID();
  const g = globalThis as unknown as { __historyRelease?: Record<string, () => void>; __runsWaiting?: Record<string, boolean>; __runsWaited?: Record<string, unknown> };
  const posted = await json("POST", `/threads/${child}/messages`, {
    content: "run",
    script: [{ toolCalls: [{ id: "h1", name: "history_after_release", arguments: { key: childKey } }] }, { text: "the child's answer" }],
  });
  expect(posted.status).toBe(202);
  await until(() => inThread(child, () => g.__historyRelease?.[childKey] !== undefined), "the child's tool to wait");
  const insertRun = (status: string, answer: string | null) =>
    inThread(id, (t) => {
      const now = Date.now();
      (t.ctx.storage.sql as SqlStorage).exec(
        "INSERT INTO background_runs (run_id, call_id, agent_id, child_thread_id, status, answer, started_at, finished_at, check_at) VALUES ('run_x', 'cx', 'deletable', ?, ?, ?, ?, ?, ?)",
        child, status, answer, now, status === "running" ? null : now, status === "running" ? now + 600_000 : null,
      );
    });
  await insertRun("running", null);
  const key = crypto.randomUUID();
  const straggler = json("POST", "/v1/tools/wait_runs_after_release", { input: { key, runIds: ["run_x"] }, sessionId: id });
  await until(() => inThread(id, () => g.__runsWaiting?.[key] === true), "the wait to begin");
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  expect((await straggler).status).toBe(404);
  await again();
  await insertRun("completed", "the new thread's private answer");
  await inThread(child, () => g.__historyRelease![childKey]!());
  const waited = await inThread(id, async () => {
    for (let i = 0; i < 1000 && g.__runsWaited?.[key] === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    return g.__runsWaited?.[key];
  });
  expect(waited).toBe("thread_not_found");
}, 120_000);
