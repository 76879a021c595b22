import { defineTool } from "@standardagents/spec";

/** The current time in UTC, as an ISO-8601 instant and the weekday. */
export default defineTool({
  description:
    "Get the current date and time in UTC as an ISO-8601 instant (for example 2026-01-31T09:30:00.000Z), with the weekday. Use it whenever the answer depends on today's date or the time.",
  effect: "read",
  execute: async () => {
    const now = new Date();
    const weekday = now.toLocaleDateString("en-US", { weekday: "long", timeZone: "UTC" });
    return { status: "success", result: `${now.toISOString()} (${weekday}, UTC)` };
  },
});
