import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ cron: "0 25 * * *", timezone: "UTC", target: { tool: "get_current_time", input: {} } });
