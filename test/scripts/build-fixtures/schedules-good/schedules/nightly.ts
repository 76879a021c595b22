import { defineSchedule } from "@standardagents/spec";

/** Reads the time at 02:30 Berlin time (on the spring-forward day at 03:00; on the fall-back day once). */
export default defineSchedule({ cron: "30 2 * * *", timezone: "Europe/Berlin", target: { tool: "get_current_time", input: {} }, missed: "once" });
