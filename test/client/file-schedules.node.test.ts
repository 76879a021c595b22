/**
 * The typed client reaches the file schedule routes: `listFileSchedules` reads
 * `GET /schedules/files`, `runFileSchedule` posts to `/schedules/files/:name/run` with the name
 * encoded, and a refusal is thrown with weft's code.
 */
import { expect, it } from "vitest";
import { WeftClient, WeftClientError } from "weft/client";

it("lists and runs file schedules at their routes", async () => {
  const sent: Array<[string, string]> = [];
  const weft = new WeftClient({
    url: "http://weft.test",
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = new URL(String(input)).pathname;
      sent.push([init?.method ?? "GET", path]);
      if (path === "/schedules/files") return Response.json({ schedules: [{ name: "morning", scheduleId: "sch_file_morning_1", agentId: "gardener", owner: "dev", threadId: "t1" }] });
      if (path === "/schedules/files/morning/run") return Response.json({ name: "morning", threadId: "t1", scheduleId: "sch_file_morning_1", key: "sch_file_morning_1:1", dueAt: "2026-12-07T07:00:00.000Z", status: "fired" });
      return Response.json({ error: { code: "schedule_not_found", message: "no file schedule of yours has that name", details: { name: "a b", path: ["name"] } } }, { status: 404 });
    }) as typeof fetch,
  });
  expect((await weft.listFileSchedules()).schedules.map((s) => s.threadId)).toEqual(["t1"]);
  expect(await weft.runFileSchedule("morning")).toMatchObject({ status: "fired", threadId: "t1" });
  const refused = await weft.runFileSchedule("a b").catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(WeftClientError);
  expect(refused).toMatchObject({ code: "schedule_not_found", status: 404 });
  expect(sent).toEqual([
    ["GET", "/schedules/files"],
    ["POST", "/schedules/files/morning/run"],
    ["POST", "/schedules/files/a%20b/run"],
  ]);
});
