import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ every: "1h", target: { tool: "pick_color", input: {} } });
