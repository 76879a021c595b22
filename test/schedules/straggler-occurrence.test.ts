/**
 * An occurrence of a deleted thread whose call was still waiting (an approval predicate that heeds
 * no signal) when a thread was made again on the same id: when it ends it marks nothing in the new
 * thread's occurrences and starts none of its queued ones, even under the same schedule id (as a
 * file schedule's would be).
 */
import { afterEach, expect, it } from "vitest";
import { inThread, json, until } from "../helpers.js";
import { keyedThread } from "../removal-helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, setClock } from "./helpers.js";

afterEach(() => setClock(null));

const g = globalThis as unknown as { __approveRelease?: Record<string, () => void>; __oldRelease?: Record<string, () => void> };
type Rows = { schedules: Record<string, SqlStorageValue>[]; occurrences: Record<string, SqlStorageValue>[] };

it("a deleted thread's occurrence that ends late leaves the re-created thread's occurrences alone", async () => {
  const { id, again } = await keyedThread("straggler-occurrence");
  const key = crypto.randomUUID();
  setClock(T0);
  const s = await makeSchedule(id, { every: "5m", target: { tool: "approve_after_release", input: { key } } });
  setClock(T0 + 5 * MINUTE);
  const alarm = deliverAlarm(id);
  await until(() => inThread(id, () => g.__approveRelease?.[key] !== undefined), "the occurrence's predicate to wait");
  await inThread(id, () => void ((g.__oldRelease ??= {})[key] = g.__approveRelease![key]!));
  const copy = (): Promise<Rows> =>
    inThread(id, (t) => {
      const sql = t.ctx.storage.sql as SqlStorage;
      return { schedules: sql.exec("SELECT * FROM schedules").toArray(), occurrences: sql.exec("SELECT * FROM occurrences").toArray() };
    });
  const before = await copy();
  expect(before.occurrences.map((o) => [o.schedule_id, o.status])).toEqual([[s.scheduleId, "started"]]);
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  await again();
  // The new thread has the same schedule and open occurrence (as a file schedule's ids would be), and one queued after it.
  await inThread(id, (t) => {
    const sql = t.ctx.storage.sql as SqlStorage;
    const insert = (table: string, row: Record<string, SqlStorageValue>) => sql.exec(`INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row).map(() => "?").join(", ")})`, ...Object.values(row));
    for (const row of before.schedules) insert("schedules", row);
    for (const row of before.occurrences) insert("occurrences", row);
    insert("occurrences", { ...before.occurrences[0]!, key: `${s.scheduleId}:${T0 + 10 * MINUTE}`, due_at: T0 + 10 * MINUTE, status: "queued", call_id: `sched_${s.scheduleId}_${T0 + 10 * MINUTE}` });
  });
  const planted = await copy();
  await inThread(id, () => g.__oldRelease![key]!());
  // Before the fix the old alarm went on to start the new thread's queued occurrence, whose predicate then waited.
  const ended = await Promise.race([alarm.then(() => "ended", () => "ended"), new Promise<string>((r) => setTimeout(() => r("still running"), 3000))]);
  const after = await copy();
  await inThread(id, () => g.__approveRelease![key] !== g.__oldRelease![key] && g.__approveRelease![key]!());
  expect(after.occurrences).toEqual(planted.occurrences);
  expect(ended).toBe("ended");
}, 60_000);

it("a DELETE waits out its grace for an occurrence's call still running, then cuts it", async () => {
  const { id } = await keyedThread("occurrence-cut");
  setClock(T0);
  await makeSchedule(id, { every: "5m", target: { tool: "slow_read", input: { ms: 60_000 } } });
  setClock(T0 + 5 * MINUTE);
  const alarm = deliverAlarm(id).then(
    () => "ended",
    () => "ended",
  );
  await until(() => inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM calls WHERE status = 'started'").one().n === 1), "the occurrence's call to start");
  const deleting = json("DELETE", `/threads/${id}`);
  // Counted like a direct call, it holds the delete until the grace ends and it is cut (slow_read heeds its signal).
  const first = await Promise.race([deleting.then(() => "deleted"), alarm]);
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  expect({ first, alarm: await Promise.race([alarm, new Promise((r) => setTimeout(() => r("still running"), 3000))]) }).toEqual({ first: "ended", alarm: "ended" });
}, 60_000);
