import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ every: "1h", target: { tool: "get_curent_time", input: {} } });
