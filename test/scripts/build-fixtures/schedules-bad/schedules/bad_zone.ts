import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ cron: "0 9 * * 1-5", timezone: "Europe/Berlim", target: { tool: "get_current_time", input: {} } });
