/**
 * Schedules of a thread whose agent is no longer deployed: a due occurrence ends, its failure
 * named `agent_not_found` (a message's turn fails with that code, a tool's occurrence is done with
 * it), the alarm handler never throws, and no new schedule can be made there.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, makeSchedule, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

const GONE = "gone_agent_sched";

describe("schedules of a thread whose agent is no longer deployed", () => {
  it("fire into a clear agent_not_found, and a new schedule is refused with it", async () => {
    setClock(T0);
    const id = await createThread({ agent: "guarantees" });
    const tool = await makeSchedule(id, { every: "5m", target: { tool: "effect_write", input: { label: "tick" } } });
    const message = await makeSchedule(id, { every: "5m", target: { agent: "guarantees", message: "SCHEDULED" } });
    await inThread(id, (t) => t.store.meta.write({ ...t.store.meta.read(), agentId: GONE }));
    await inThread(id, (t) => t.restartForTest()).catch(() => undefined);

    const due = T0 + 5 * MINUTE;
    setClock(due);
    // Each delivery ends without throwing (a throw rejects here).
    for (let i = 0; i < 4; i++) expect(await deliverAlarm(id)).not.toBe("crashed");
    expect((await occurrencesOf(id, tool.scheduleId)).map((o) => o.status)).toEqual(["done"]);
    expect((await occurrencesOf(id, message.scheduleId)).map((o) => o.status)).toEqual(["done"]);
    const info = await json("GET", `/threads/${id}`);
    expect(info.body.status).toBe("idle");
    expect(info.body.lastTurn).toMatchObject({ status: "failed", errorCode: "agent_not_found" });
    const outcomes = await inThread(id, (t) => t.ctx.storage.sql.exec("SELECT outcome FROM occurrences WHERE schedule_id = ?", tool.scheduleId).toArray());
    expect(outcomes).toEqual([{ outcome: "agent_not_found" }]);
    expect((await eventsOf(id)).filter((e) => e.type === "schedule_fired")).toHaveLength(2);

    const refused = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "effect_read", input: {} } });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: "agent_not_found", details: { agentId: GONE } });
  });
});
