/**
 * A keyed create that fails leaves no thread behind (a retry after the owner fixed the cause
 * succeeds), whatever a deleted thread on that id left running: found by a hostile review of the
 * cleanup's first guard, which skipped it while any counted work ran, leftover work included.
 */
import { expect, it } from "vitest";
import { inThread, json, keyed, until } from "../helpers.js";

it("a failed keyed create on an id whose deleted thread left work running is cleaned up like any other", async () => {
  const g = globalThis as unknown as { __approveRelease?: Record<string, () => void> };
  const create = (token: string, key: string) => keyed("POST", "/threads", key, { agent: "needs_key", continuationToken: token });
  const token = `straggler-create:${crypto.randomUUID()}`;
  const first = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
  expect(first.status).toBe(201);
  const id = first.body.threadId as string;
  const predicateKey = crypto.randomUUID();
  const straggler = json("POST", "/v1/tools/approve_after_release", { input: { key: predicateKey }, sessionId: id });
  await until(() => inThread(id, () => g.__approveRelease?.[predicateKey] !== undefined), "the predicate to wait");
  try {
    expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
    // The predicate's request still runs: the leftover work this test is about.
    const controlToken = `straggler-control:${crypto.randomUUID()}`;
    const controlKey = `idem-${crypto.randomUUID()}`;
    const idemKey = `idem-${crypto.randomUUID()}`;
    expect((await create(controlToken, controlKey)).status).toBe(400);
    expect(await create(token, idemKey)).toMatchObject({ status: 400, body: { error: { code: "missing_variables" } } });
    const tablesLeft = await inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'").one().n);
    expect((await json("PUT", "/account/env/WEFT_FIXTURE_PAYMENT_KEY", { value: "k", type: "secret" })).status).toBe(200);
    try {
      const controlRetry = await create(controlToken, controlKey);
      const retry = await create(token, idemKey);
      expect({ controlRetry: controlRetry.status, tablesLeft, retry: retry.status }).toEqual({ controlRetry: 201, tablesLeft: 0, retry: 201 });
    } finally {
      await json("DELETE", "/account/env/WEFT_FIXTURE_PAYMENT_KEY");
    }
  } finally {
    await inThread(id, () => g.__approveRelease?.[predicateKey]?.());
    expect((await straggler).status).toBe(404);
  }
}, 120_000);

it("a thread made again on the id neither counts nor waits for what its deleted thread left running", async () => {
  const g = globalThis as unknown as { __approveRelease?: Record<string, () => void> };
  const token = `straggler-count:${crypto.randomUUID()}`;
  const made = () => json("POST", "/threads", { agent: "deletable", continuationToken: token });
  const id = (await made()).body.threadId as string;
  const key = crypto.randomUUID();
  const straggler = json("POST", "/v1/tools/approve_after_release", { input: { key }, sessionId: id });
  await until(() => inThread(id, () => g.__approveRelease?.[key] !== undefined), "the predicate to wait");
  try {
    expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
    expect((await made()).status).toBe(201);
    // Counted, it would make the new thread's DELETE wait out WEFT_DELETE_GRACE_MS for work not its own.
    expect(await inThread(id, (t) => t.inFlight.count)).toBe(0);
  } finally {
    await inThread(id, () => g.__approveRelease?.[key]?.());
    expect((await straggler).status).toBe(404);
  }
  // Its end takes nothing off the new thread's count.
  expect(await inThread(id, (t) => t.inFlight.count)).toBe(0);
}, 60_000);
