import { defineSchedule } from "@standardagents/spec";

/**
 * A file schedule: every night at 02:30 Berlin time the deployment calls get_current_time in this
 * schedule's own thread (owned by `weft:schedules`, which admins read). No request starts it: the
 * Worker's cron trigger takes it up after each deploy (docs/schedules.md, "Where file schedules run").
 */
export default defineSchedule({ cron: "30 2 * * *", timezone: "Europe/Berlin", target: { tool: "get_current_time", input: {} } });
