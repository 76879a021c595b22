/**
 * `GET /schedules/files` (new-user trial: nothing told a file schedule's owner where it runs):
 * each file schedule its caller owns, with the id of its thread; nobody else's.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fileScheduleOf, fileThreadName } from "../../src/schedules/files.js";
import { registry } from "../generated/registry.js";
import { json } from "../helpers.js";

describe("a file schedule's thread", () => {
  it("its owner reads the thread id of each file schedule it owns; another user and an admin see none of it", async () => {
    const threads = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const pulse = fileScheduleOf(registry, "pulse")!;
    const mine = await json("GET", "/schedules/files", undefined, "tester");
    expect(mine).toEqual({
      status: 200,
      body: { schedules: [{ name: "pulse", scheduleId: pulse.scheduleId, agentId: pulse.agent, owner: "tester", threadId: threads.idFromName(fileThreadName("pulse", "tester")).toString() }] },
    });
    expect((await json("GET", "/schedules/files", undefined, "alice")).body).toEqual({ schedules: [] });
    // An admin reads the threads of `weft:schedules` (schedules without an owner); this one has an owner.
    expect((await json("GET", "/schedules/files", undefined, "root")).body).toEqual({ schedules: [] });
  });
});
