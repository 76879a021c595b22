import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ every: "1h", target: { tool: "roll_dice", input: { sides: "twenty" } } });
