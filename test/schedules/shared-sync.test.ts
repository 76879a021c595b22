/**
 * The deployment's one FileSchedules object is shared by every file schedule's owner (hostile
 * review): one owner whose file cannot be taken up (their account at its thread limit, or held busy
 * by their own requests) must not make another owner's `POST /schedules/files/:name/run` wait for
 * that owner's account, nor have every cron trigger take every other file up again.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { SyncReport } from "../../src/schedules/deployment.js";
import { defineSchedule } from "../../src/schedules/define.js";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { registry } from "../generated/registry.js";
import { json } from "../helpers.js";
import { setClock, T0 } from "./helpers.js";

const vars = env as unknown as { ACCOUNT: DurableObjectNamespace; SCHEDULES: DurableObjectNamespace };
const sync = () => (vars.SCHEDULES.get(vars.SCHEDULES.idFromName("deployment")) as unknown as { sync(): Promise<SyncReport> }).sync();
const accountOf = (userId: string) => vars.ACCOUNT.get(vars.ACCOUNT.idFromName(userId));

afterEach(async () => {
  delete registry.schedules!.hostile_pulse;
  delete registry.schedules!.pulse_other;
  delete registry.schedules!.pulse_mine;
  await sync();
  setClock(null);
});

/** A file owned by a fresh user whose account is at the default limit of 1000 threads, as 1000 creates leave it. */
async function ownerAtLimit(): Promise<string> {
  const hostile = `hostile-${crypto.randomUUID().slice(0, 8)}`;
  registry.schedules!.hostile_pulse = defineSchedule({ every: "1h", target: { tool: "effect_write", input: { label: "hostile" } }, owner: hostile });
  await runInDurableObject(accountOf(hostile), (_account, state: DurableObjectState) => {
    state.storage.sql.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO account_threads (thread_id, agent_id, created_at) SELECT 'filler' || i, 'default', i FROM n");
  });
  return hostile;
}

describe("one file owner cannot hold the deployment's file schedules for the others", () => {
  it("another owner's run-now neither asks nor waits for the account of an owner whose file failed to be taken up", async () => {
    setClock(T0);
    const hostile = await ownerAtLimit();
    // A file of this test's own: files.test.ts follows the occurrences of "pulse" in its thread.
    registry.schedules!.pulse_mine = defineSchedule({ every: "1h", target: { tool: "effect_write", input: { label: "mine" } }, owner: "tester" });
    const first = await sync();
    expect(first.failed).toEqual([expect.stringMatching(/^hostile_pulse: too_many_threads/)]);
    // The hostile owner's account busy for 3 s (their own requests would do it).
    let busyEnded = false;
    const busy = runInDurableObject(accountOf(hostile), (_account, state: DurableObjectState) => state.blockConcurrencyWhile(() => scheduler.wait(3000))).then(() => {
      busyEnded = true;
    });
    await scheduler.wait(50);
    const lines: string[] = [];
    const untap = tapLogs((_level, args) => lines.push(args.map(String).join(" ")));
    let ran: Awaited<ReturnType<typeof json>>;
    try {
      ran = await json("POST", "/schedules/files/pulse_mine/run", undefined, "tester");
    } finally {
      untap();
    }
    // Answered while the hostile owner's account was still held: it neither asked nor waited for it.
    const answeredWhileBusy = !busyEnded;
    await busy;
    expect(ran.status).toBe(200);
    expect(lines.filter((l) => l.includes("hostile_pulse"))).toEqual([]);
    expect(answeredWhileBusy).toBe(true);
  });

  it("a retried sync takes up only what failed: the others' threads are not asked again each minute", async () => {
    setClock(T0);
    await ownerAtLimit();
    registry.schedules!.pulse_other = defineSchedule({ every: "1h", target: { tool: "effect_write", input: { label: "other" } }, owner: "bob" });
    const first = await sync();
    expect(first.failed).toEqual([expect.stringMatching(/^hostile_pulse: too_many_threads/)]);
    expect(first.schedules.some((s) => s.startsWith("pulse_other: "))).toBe(true);
    const again = await sync();
    expect(again.failed).toEqual([expect.stringMatching(/^hostile_pulse: too_many_threads/)]);
    expect(again.schedules).toEqual([]);
  });
});
