import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ every: "1h", owner: "weft:other", target: { tool: "get_current_time", input: {} } });
