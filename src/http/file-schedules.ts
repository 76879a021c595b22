/**
 * `GET /schedules/files`: the file schedules (`agents/schedules/<name>.ts`) the caller owns, each
 * with the thread it runs in, so its owner can read that thread's events, calls and schedules
 * through the thread routes. A schedule without an `owner` belongs to `weft:schedules`, whose
 * threads admins read: an admin sees those too. Nobody sees another user's.
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import type { Registry } from "../run/agent.js";
import { FILE_SCHEDULE_OWNER } from "../schedules/define.js";
import { fileSchedulesOf } from "../schedules/files.js";
import type { AuthedEnv } from "./auth.js";
import { describe, ok } from "./openapi.js";
import { type Body, named } from "./response-registry.js";

/** One file schedule as its owner sees it. */
export const FileScheduleList = named(
  "FileScheduleList",
  z.object({
    schedules: z.array(
      z.object({
        /** The file's name under `agents/schedules/`. */
        name: z.string(),
        /** The id of its current version's schedule in its thread. */
        scheduleId: z.string(),
        agentId: z.string(),
        owner: z.string(),
        /** The thread it runs in: `/threads/:threadId/ws` (events), `/schedules` and `/calls` read it. */
        threadId: z.string(),
      }),
    ),
  }),
);

/** The `/schedules` routes of a registry's file schedules. */
export function fileScheduleRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  app.get("/files", describe("The file schedules you own (admins: also those of weft:schedules), each with its thread's id", { 200: ok("Your file schedules", FileScheduleList) }), (c) => {
    const { userId, admin } = c.var.caller;
    const threads = c.env.THREAD as DurableObjectNamespace;
    const schedules = fileSchedulesOf(registry)
      .filter((f) => f.owner === userId || (admin && f.owner === FILE_SCHEDULE_OWNER))
      .map((f) => ({ name: f.name, scheduleId: f.scheduleId, agentId: f.agent, owner: f.owner, threadId: threads.idFromName(f.threadName).toString() }));
    return c.json({ schedules } satisfies Body<typeof FileScheduleList>);
  });
  return app;
}
