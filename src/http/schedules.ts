/**
 * A thread's schedules (docs/schedules.md): make one (201), list them, cancel one. Making and
 * cancelling need write access to the thread (its owner), listing read access, as every thread
 * route; the list comes in cursor pages bounded in count and bytes. The schedule itself is checked
 * in the thread (src/schedules/define.ts, target.ts), so a bad cron, zone, interval, time or target
 * answers 400 `invalid_schedule`, and a tool input its schema refuses 400 `invalid_tool_input`,
 * each with its path, storing nothing.
 * @module
 */
import { unwrap } from "../rpc.js";
import { Hono } from "hono";
import * as z from "zod";
import type { AuthedEnv } from "./auth.js";
import { idempotencyOf } from "./idempotency.js";
import { describe, ok, refused } from "./openapi.js";
import { Schedule, ScheduleList } from "./schedule-responses.js";
import { threadStub } from "./stubs.js";
import { jsonBody, query } from "./validate.js";
import { SchedulesQuery, closedObject } from "./schemas.js";
import { SCHEDULE_PAGE_BYTES } from "../schedules/page.js";

const time = z.union([z.string(), z.number()]);

/**
 * Body of `POST /threads/:id/schedules`: `defineSchedule`'s options (src/schedules/define.ts). A
 * misspelt field is refused by name, and a target of neither shape says both shapes (a union's
 * own issue names no field: "input: Unrecognized key", "target: Invalid input").
 */
export const ScheduleBody = closedObject(
  {
    cron: z.string().optional(),
    every: time.optional(),
    at: time.optional(),
    timezone: z.string().optional(),
    target: z.union([z.object({ agent: z.string(), message: z.string() }).strict(), z.object({ tool: z.string(), input: z.unknown().optional() }).strict()], {
      error: "expected { agent, message } (a message for a turn of the thread's agent) or { tool, input? } (a call of one of its tools)",
    }),
    missed: z.enum(["skip", "once", "all"]).optional(),
    overlap: z.enum(["skip", "queue"]).optional(),
    jitterMs: z.number().int().nonnegative().optional(),
    until: time.optional(),
  },
  "unknown field; the fields are cron, every, at, timezone, target, missed, overlap, jitterMs and until",
  [],
);

/** The `/threads/:id/schedules` routes. */
export function scheduleRoutes() {
  const app = new Hono<AuthedEnv>();

  app.get(
    "/:id/schedules",
    describe(`List the thread's schedules in creation order (cursor pages: at most ?limit=, 1 to 1000, default 100, and ${SCHEDULE_PAGE_BYTES} bytes of JSON, one schedule at least)`, {
      200: ok("A page of schedules; nextCursor is null on the last", ScheduleList),
      ...refused(400, 404),
    }),
    query(SchedulesQuery),
    async (c) => {
      const q = c.req.valid("query");
      const page = { ...(q.limit !== undefined ? { limit: q.limit } : {}), ...(q.cursor ? { cursor: q.cursor } : {}) };
      return c.json(unwrap(await threadStub(c.env, c.req.param("id")).listSchedules(c.var.caller, page)));
    },
  );

  app.post("/:id/schedules", describe("Make a schedule on the thread", { 201: ok("The schedule", Schedule), ...refused(400, 404, 413, 415, 422) }, { idempotencyKey: true }), jsonBody(ScheduleBody), async (c) => {
    const body = c.req.valid("json");
    const idem = await idempotencyOf(c, body);
    return c.json(unwrap(await threadStub(c.env, c.req.param("id")).createSchedule(c.var.caller, body, idem)), 201);
  });

  app.delete("/:id/schedules/:scheduleId", describe("Cancel a schedule: none of its occurrences fires after this", { 200: ok("The cancelled schedule", Schedule), ...refused(404) }), async (c) =>
    c.json(unwrap(await threadStub(c.env, c.req.param("id")).cancelSchedule(c.var.caller, c.req.param("scheduleId")))),
  );

  return app;
}
