import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ every: "1h", target: { tool: "search_web", input: {} } });
