/**
 * A schedule stored before its tool became one only a model calls (a deploy made it a client or a
 * provider tool) can never fire: its first due firing records the occurrence failed with
 * `tool_not_callable` and cancels the schedule with `schedule_cancelled` naming why, instead of
 * failing every occurrence for good. New schedules refuse such a target (target.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json } from "../helpers.js";
import { MINUTE, T0, deliverAlarm, occurrencesOf, setClock } from "./helpers.js";

afterEach(() => setClock(null));

describe("a stored schedule whose tool only a model can call now", () => {
  for (const [agent, tool, why] of [
    ["browser", "pick_file", /client tool/],
    ["searcher", "web_search", /executed by the provider/],
  ] as const) {
    it(`${tool}: its first firing ends it, cancelled with the reason, and nothing fires after`, async () => {
      setClock(T0);
      const id = await createThread({ agent });
      // Stored as one made before the tool changed: past every check of create.
      const spec = { everyMs: 5 * MINUTE, target: { tool, input: { query: "x" } }, missed: "once", overlap: "skip", jitterMs: 0 };
      const s = await inThread(id, (i) => i.schedules.add(i.world, `sch_${tool}`, spec, "tester", T0));
      setClock(T0 + 5 * MINUTE);
      await deliverAlarm(id);
      const outcomes = await inThread(id, (t) => t.ctx.storage.sql.exec("SELECT status, outcome FROM occurrences WHERE schedule_id = ?", s.scheduleId).toArray());
      expect(outcomes).toEqual([{ status: "done", outcome: "tool_not_callable" }]);
      expect((await json("GET", `/threads/${id}/schedules`)).body.schedules[0]).toMatchObject({ scheduleId: s.scheduleId, status: "cancelled" });
      const cancelled = (await eventsOf(id)).filter((e) => e.type === "schedule_cancelled");
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]!.data).toMatchObject({ scheduleId: s.scheduleId, errorCode: "tool_not_callable", error: expect.stringMatching(why) });

      setClock(T0 + 20 * MINUTE);
      await deliverAlarm(id);
      expect(await occurrencesOf(id, s.scheduleId)).toHaveLength(1);
      expect((await eventsOf(id)).filter((e) => e.type === "schedule_fired" || e.type === "schedule_cancelled")).toHaveLength(1);
    });
  }
});
