/**
 * Response schemas of the schedule routes (schedules.ts), registered like the rest
 * (response-registry.ts) and tied to the types the thread answers with.
 * @module
 */
import * as z from "zod";
import type { ScheduleInfo } from "../schedules/info.js";
import { type Body, epochMs, named } from "./response-registry.js";

const target = z.union([z.object({ agent: z.string(), message: z.string() }), z.object({ tool: z.string(), input: z.unknown().optional() })]);

/** A schedule as the thread holds it: its checked form, where it stands, its next due time. */
export const Schedule = named(
  "Schedule",
  z.object({
    scheduleId: z.string(),
    status: z.enum(["active", "cancelled", "done"]),
    nextDueAt: z.string().nullable(),
    createdAt: z.string(),
    schedule: z.object({
      cron: z.string().optional(),
      everyMs: z.number().int().optional(),
      at: epochMs.optional(),
      timezone: z.string().optional(),
      target,
      missed: z.enum(["skip", "once", "all"]),
      overlap: z.enum(["skip", "queue"]),
      jitterMs: z.number().int(),
      until: epochMs.optional(),
    }),
  }),
);

/** `GET /threads/:id/schedules`: one page; `nextCursor` asks for the next, null on the last. */
export const ScheduleList = named("ScheduleList", z.object({ schedules: z.array(Schedule), nextCursor: z.string().nullable() }));

/** Fails to compile unless `T` is `true`. */
type Holds<T extends true> = T;
/** Compile-time tie: the schema's body is the thread's {@link ScheduleInfo}, both ways; nothing here runs. */
export type ScheduleTie = [Holds<Body<typeof Schedule> extends ScheduleInfo ? true : false>, Holds<ScheduleInfo extends Body<typeof Schedule> ? true : false>];
