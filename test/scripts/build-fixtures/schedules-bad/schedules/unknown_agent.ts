import { defineSchedule } from "@standardagents/spec";

export default defineSchedule({ every: "1d", target: { agent: "nobody", message: "Good morning" } });
