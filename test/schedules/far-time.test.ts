/**
 * A schedule names no time an alarm cannot (review 21h): `at: 2300` passed the check (then up to
 * 9999), the alarm refused it after the row was stored (500), and every start of the thread after
 * an eviction failed to arm it: every request, DELETE included, answered 503 for good.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { createThread, json, rawStub } from "../helpers.js";

it("a time past 2099 is refused with its path, nothing is stored, and the thread stays usable", async () => {
  const id = await createThread();
  const made = await json("POST", `/threads/${id}/schedules`, { at: "2300-01-01T00:00:00Z", target: { tool: "effect_read", input: {} } });
  expect([made.status, made.body.error?.code, made.body.error?.details?.path]).toEqual([400, "invalid_schedule", ["at"]]);
  expect((await json("GET", `/threads/${id}/schedules`)).body.schedules).toEqual([]);
  await evictDurableObject(rawStub(id));
  expect((await json("GET", `/threads/${id}`)).status).toBe(200);
});

it("a row stored before the limit wakes the thread at the limit instead of failing its start", async () => {
  const id = await createThread();
  const made = await json("POST", `/threads/${id}/schedules`, { at: "2099-06-01T00:00:00Z", target: { tool: "effect_read", input: {} } });
  expect(made.status).toBe(201);
  // As a thread of the old rule kept it: due in 2300.
  await runInDurableObject(rawStub(id), async (_o, state) => {
    state.storage.sql.exec("UPDATE schedules SET next_due = ?, fire_at = ?", Date.UTC(2300, 0, 1), Date.UTC(2300, 0, 1));
    // No alarm set: the next start arms one for the row.
    await state.storage.deleteAlarm();
  });
  await evictDurableObject(rawStub(id));
  expect((await json("GET", `/threads/${id}`)).status).toBe(200);
  expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
});
