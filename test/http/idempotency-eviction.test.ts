/**
 * The idempotency table keeps at most IDEMPOTENCY_MAX_KEYS keys per thread, oldest first out, but
 * never a key whose request still runs: evicted, its retry claimed the key afresh and acted a
 * second time (found by a hostile review: two schedules, no 409).
 */
import { expect, it } from "vitest";
import { IDEMPOTENCY_MAX_KEYS } from "../../src/thread/store/idempotency.js";
import { createThread, inThread, keyed, until } from "../helpers.js";
import { heldCounts, holdCount } from "../schedules/helpers.js";

it(`a keyed request still running keeps its key past ${IDEMPOTENCY_MAX_KEYS} newer keys`, async () => {
  const id = await createThread({ agent: "guarantees" });
  const tag = crypto.randomUUID();
  // The schedule request waits for the owner's account (its count check) until released.
  await holdCount(id, tag);
  const body = { every: "1h", target: { tool: "effect_read", input: {} } };
  const first = keyed("POST", `/threads/${id}/schedules`, `key-${tag}`, body);
  await until(() => inThread(id, () => heldCounts[tag] !== undefined), "the count check to wait");
  // Cheap keyed requests (a denial of a call that does not exist), each keeping its key.
  for (let i = 0; i < IDEMPOTENCY_MAX_KEYS; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => keyed("POST", `/threads/${id}/calls/call_none/deny`, `other-${tag}-${i + j}`, {})));
  }
  // Evicted, the retry would act and wait behind the first's count check: it is given 2 s to answer.
  const retrying = keyed("POST", `/threads/${id}/schedules`, `key-${tag}`, body);
  const early = await Promise.race([retrying.then((r) => r.status), new Promise((r) => setTimeout(() => r("no answer"), 2000))]);
  await inThread(id, () => heldCounts[tag]!());
  const [answered, retry] = await Promise.all([first, retrying]);
  const rows = await inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM schedules").one().n);
  expect({ early, retry: retry.status, first: answered.status, rows }).toEqual({ early: 409, retry: 409, first: 201, rows: 1 });
  // Answered now, the key replays its answer.
  expect(await keyed("POST", `/threads/${id}/schedules`, `key-${tag}`, body)).toEqual(answered);
}, 180_000);
