/**
 * The commands on a thread's schedules (docs/schedules.md): list them, make one, cancel one. The
 * running weft checks the schedule; a bad cron, zone, interval, time or target is refused with
 * the field it names (exit 1).
 * @module
 */
import type { Command } from "commander";
import type { ScheduleInfo, ScheduleOptions } from "weft/client";
import { type Common, common, intArg, jsonArg, out, run, say } from "./command.ts";

/** One line per schedule: id, status, when, the next due time and what it does. */
export function scheduleLine(s: ScheduleInfo): string {
  const when = s.schedule.cron !== undefined ? `cron "${s.schedule.cron}" ${s.schedule.timezone}` : s.schedule.everyMs !== undefined ? `every ${s.schedule.everyMs / 1000}s` : `at ${new Date(s.schedule.at!).toISOString()}`;
  const target = "tool" in s.schedule.target ? `tool ${s.schedule.target.tool}` : `message to ${s.schedule.target.agent}`;
  return `${s.scheduleId} ${s.status} ${when} -> ${target}${s.nextDueAt ? ` (next ${s.nextDueAt})` : ""}`;
}

type ScheduleFlags = Common & { cron?: string; timezone?: string; every?: string; at?: string; tool?: string; input?: unknown; agent?: string; message?: string; missed?: "skip" | "once" | "all"; overlap?: "skip" | "queue"; jitterMs?: number; until?: string };

/** The body `POST /threads/:id/schedules` takes, from the flags given (the server checks it). */
function scheduleOf(o: ScheduleFlags): ScheduleOptions {
  const target: ScheduleOptions["target"] = o.tool !== undefined ? { tool: o.tool, ...(o.input !== undefined ? { input: o.input } : {}) } : { agent: o.agent ?? "", message: o.message ?? "" };
  const every = o.every !== undefined && /^\d+$/.test(o.every) ? Number(o.every) : o.every;
  return {
    target,
    ...(o.cron !== undefined ? { cron: o.cron } : {}),
    ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
    ...(every !== undefined ? { every } : {}),
    ...(o.at !== undefined ? { at: o.at } : {}),
    ...(o.missed !== undefined ? { missed: o.missed } : {}),
    ...(o.overlap !== undefined ? { overlap: o.overlap } : {}),
    ...(o.jitterMs !== undefined ? { jitterMs: o.jitterMs } : {}),
    ...(o.until !== undefined ? { until: o.until } : {}),
  };
}

/** Adds `schedules`, `schedule` and `unschedule` to `weft`. */
export function addScheduleCommands(weft: Command): void {
  common(weft.command("schedules").argument("<threadId>"))
    .description("list a thread's schedules")
    .action(async (threadId: string, opts: Common, cmd: Command) => {
      await run(opts, async (client) => {
        // Every page, one after another: the thread answers at most 1 MiB at a time.
        const schedules: (typeof page)["schedules"] = [];
        let page = await client.listSchedules(threadId);
        schedules.push(...page.schedules);
        while (page.nextCursor) {
          page = await client.listSchedules(threadId, { cursor: page.nextCursor });
          schedules.push(...page.schedules);
        }
        if (opts.json) return out({ schedules }, true);
        if (schedules.length === 0) say("no schedules");
        for (const s of schedules) say(scheduleLine(s));
      }, false, cmd);
    });

  common(weft.command("schedule").argument("<threadId>"))
    .description("make a schedule on a thread: each occurrence calls a tool or posts a message, once")
    .option("--cron <expr>", "five cron fields, in --timezone")
    .option("--timezone <zone>", "an IANA zone such as Europe/Berlin (required with --cron)")
    .option("--every <interval>", "milliseconds, or 90s, 5m, 2h, 1d; at least a minute")
    .option("--at <time>", "one time, ISO-8601")
    .option("--tool <name>", "call this tool")
    .option("--input <json>", "the tool's input", jsonArg("--input"))
    .option("--agent <id>", "post --message to the thread (its agent)")
    .option("--message <text>", "the message each occurrence posts")
    .option("--missed <policy>", "skip, once or all")
    .option("--overlap <policy>", "skip or queue")
    .option("--jitter-ms <ms>", "start each occurrence up to this late", intArg)
    .option("--until <time>", "no occurrence after this time, ISO-8601")
    .action(async (threadId: string, opts: ScheduleFlags, cmd: Command) => {
      await run(opts, async (client) => {
        const made = await client.createSchedule(threadId, scheduleOf(opts));
        if (opts.json) return out(made, true);
        say(scheduleLine(made));
      }, false, cmd);
    });

  common(weft.command("unschedule").argument("<threadId>").argument("<scheduleId>"))
    .description("cancel a schedule: none of its occurrences fires after this")
    .action(async (threadId: string, scheduleId: string, opts: Common, cmd: Command) => {
      await run(opts, async (client) => {
        const cancelled = await client.cancelSchedule(threadId, scheduleId);
        if (opts.json) return out(cancelled, true);
        say(scheduleLine(cancelled));
      }, false, cmd);
    });
}
