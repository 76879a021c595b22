/**
 * `GET /schedules/files`: the file schedules (`agents/schedules/<name>.ts`) the caller owns, each
 * with the thread it runs in, so its owner can read that thread's events, calls and schedules
 * through the thread routes. A schedule without an `owner` belongs to `weft:schedules`, whose
 * threads admins read: an admin sees those too. Nobody sees another user's.
 * `POST /schedules/files/:name/run` runs one of those at once, in its thread, as its cron would.
 * @module
 */
import { Hono } from "hono";
import * as z from "zod";
import { WeftError, echoedValue } from "../errors.js";
import type { Registry } from "../run/agent.js";
import { type Caller, unwrap } from "../rpc.js";
import { FILE_SCHEDULE_OWNER } from "../schedules/define.js";
import { takeUpFileSchedule } from "../schedules/deployment.js";
import { type FileSchedule, fileScheduleOf, fileSchedulesOf } from "../schedules/files.js";
import type { AuthedEnv } from "./auth.js";
import { idempotencyOf } from "./idempotency.js";
import { describe, ok, refused } from "./openapi.js";
import { type Body, named } from "./response-registry.js";
import { threadStub } from "./stubs.js";

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

/** What `POST /schedules/files/:name/run` started: the occurrence (src/schedules/info.ts `ScheduleRun`) and its thread. */
export const FileScheduleRun = named(
  "FileScheduleRun",
  z.object({
    name: z.string(),
    /** The thread it ran in, as `GET /schedules/files` names it. */
    threadId: z.string(),
    scheduleId: z.string(),
    /** `scheduleId:dueAt` (epoch ms). */
    key: z.string(),
    /** When it was asked for, ISO-8601. */
    dueAt: z.string(),
    /** `fired` (its turn's message is queued, or its call ran), `queued` behind the running one, `skipped` by its `overlap`. */
    status: z.enum(["fired", "queued", "skipped"]),
    reason: z.enum(["overlap", "queue_full"]).optional(),
    /** A tool target's call: `GET /threads/:threadId/calls/:callId`. */
    callId: z.string().optional(),
  }),
);

/** Who may see and run a file schedule: its owner, and an admin one of `weft:schedules` (no person owns it). */
const mayRun = ({ userId, admin }: Caller, f: FileSchedule) => f.owner === userId || (admin && f.owner === FILE_SCHEDULE_OWNER);

/** The `/schedules` routes of a registry's file schedules. */
export function fileScheduleRoutes(registry: Registry) {
  const app = new Hono<AuthedEnv>();
  app.get("/files", describe("The file schedules you own (admins: also those of weft:schedules), each with its thread's id", { 200: ok("Your file schedules", FileScheduleList) }), (c) => {
    const threads = c.env.THREAD as DurableObjectNamespace;
    const schedules = fileSchedulesOf(registry)
      .filter((f) => mayRun(c.var.caller, f))
      .map((f) => ({ name: f.name, scheduleId: f.scheduleId, agentId: f.agent, owner: f.owner, threadId: threads.idFromName(f.threadName).toString() }));
    return c.json({ schedules } satisfies Body<typeof FileScheduleList>);
  });

  app.post(
    "/files/:name/run",
    describe("Run a file schedule's occurrence now in its thread, as its cron would (its owner; admins: those of weft:schedules); its next occurrence stays", {
      200: ok("What the run started", FileScheduleRun),
      ...refused(404),
    }, { idempotencyKey: true }),
    async (c) => {
      const name = c.req.param("name");
      const file = fileScheduleOf(registry, name);
      // Anyone else finds none, as in the list: another user's schedule does not show it exists.
      // The name once, in details, cut: the message would repeat a path parameter of any length.
      if (!file || !mayRun(c.var.caller, file)) throw new WeftError("schedule_not_found", "no file schedule of yours has that name (details.name; a file schedule is agents/schedules/<name>.ts)", { name: echoedValue(name), path: ["name"] });
      const idem = await idempotencyOf(c, null);
      // Taken up first, as the next cron trigger would (a file saved a moment ago has no thread yet):
      // this file alone, so no other owner's file that fails to be taken up holds this run.
      await takeUpFileSchedule(c.env, file.name);
      const threadId = (c.env.THREAD as DurableObjectNamespace).idFromName(file.threadName).toString();
      const ran = unwrap(await threadStub(c.env, threadId).runSchedule(c.var.caller, file.scheduleId, idem));
      return c.json({ name, threadId, ...ran } satisfies Body<typeof FileScheduleRun>);
    },
  );
  return app;
}
