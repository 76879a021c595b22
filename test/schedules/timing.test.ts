import { describe, expect, it } from "vitest";
import { checkSchedule } from "../../src/schedules/define.js";
import { dueThrough, nextDue } from "../../src/schedules/timing.js";

const known = { agent: (n: string) => n === "desk", tool: (n: string) => n === "ping" };
const cron = (expr: string, timezone: string) => checkSchedule({ cron: expr, timezone, target: { tool: "ping" } }, known);

/** The next `n` occurrences after `from` (ISO), as ISO instants. */
function occurrences(expr: string, zone: string, from: string, n: number): string[] {
  const spec = cron(expr, zone);
  const out: string[] = [];
  for (let t = Date.parse(from); out.length < n; ) {
    t = nextDue(spec, 0, t)!;
    out.push(new Date(t).toISOString());
  }
  return out;
}

/** Zones and their 2030 transitions: spring-forward day (02:00 -> 03:00 local) and fall-back day (repeats one hour). */
const ZONES = [
  // US: 2030-03-10 02:00 EST -> 03:00 EDT; 2030-11-03 02:00 EDT -> 01:00 EST (01:xx repeats).
  { zone: "America/New_York", springDay: "2030-03-10", gap: "30 2 * * *", springRun: "2030-03-10T07:00:00.000Z", fallDay: "2030-11-03", repeat: "30 1 * * *", fallRun: "2030-11-03T05:30:00.000Z" },
  // EU: 2030-03-31 02:00 CET -> 03:00 CEST; 2030-10-27 03:00 CEST -> 02:00 CET (02:xx repeats).
  { zone: "Europe/Berlin", springDay: "2030-03-31", gap: "30 2 * * *", springRun: "2030-03-31T01:00:00.000Z", fallDay: "2030-10-27", repeat: "30 2 * * *", fallRun: "2030-10-27T00:30:00.000Z" },
  // Australia: 2030-10-06 02:00 AEST -> 03:00 AEDT; 2030-04-07 03:00 AEDT -> 02:00 AEST (02:xx repeats).
  { zone: "Australia/Sydney", springDay: "2030-10-06", gap: "30 2 * * *", springRun: "2030-10-05T16:00:00.000Z", fallDay: "2030-04-07", repeat: "30 2 * * *", fallRun: "2030-04-06T15:30:00.000Z" },
];

describe("cron across daylight saving, in three zones (docs/schedules.md)", () => {
  it.each(ZONES)("$zone: a time in the spring-forward gap runs once, at the first instant after the gap", ({ zone, springDay, gap, springRun }) => {
    const from = new Date(Date.parse(`${springDay}T00:00:00Z`) - 2 * 86_400_000).toISOString();
    const runs = occurrences(gap, zone, from, 4);
    const onDay = runs.filter((r) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, dateStyle: "short" }).format(new Date(r)) === springDay);
    expect(onDay).toEqual([springRun]);
    // The other days keep their wall time: one run a day, four days in a row.
    expect(new Set(runs.map((r) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, dateStyle: "short" }).format(new Date(r)))).size).toBe(4);
  });

  it.each(ZONES)("$zone: a time that happens twice on the fall-back day runs once, at its first instant", ({ zone, fallDay, repeat, fallRun }) => {
    const from = new Date(Date.parse(`${fallDay}T00:00:00Z`) - 2 * 86_400_000).toISOString();
    const runs = occurrences(repeat, zone, from, 4);
    const onDay = runs.filter((r) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, dateStyle: "short" }).format(new Date(r)) === fallDay);
    expect(onDay).toEqual([fallRun]);
  });

  it("an hourly cron across a fall-back day runs 25 times in its 25 hours, never twice at one instant", () => {
    const runs = occurrences("0 * * * *", "America/New_York", "2030-11-03T04:00:00Z", 25);
    expect(new Set(runs).size).toBe(25);
    expect(Date.parse(runs.at(-1)!) - Date.parse(runs[0]!)).toBe(24 * 3_600_000);
  });

  it("a catch-up after a year of downtime reads its window backwards: the latest 10, the rest counted", () => {
    const spec = cron("* * * * *", "UTC");
    const first = Date.UTC(2030, 0, 1);
    const now = first + 365 * 86_400_000 + 30_000;
    const { due, dropped } = dueThrough(spec, 0, first, now, 10);
    expect(due.length).toBe(10);
    expect(due.at(-1)).toBe(now - 30_000);
    expect(due[0]).toBe(now - 30_000 - 9 * 60_000);
    expect(dropped).toBeGreaterThanOrEqual(2000);
  });
});

describe("checkSchedule refuses bad input with a code and the path", () => {
  const cases: [string, unknown, (string | number)[]][] = [
    ["a bad cron", { cron: "61 * * * *", timezone: "UTC", target: { tool: "ping" } }, ["cron"]],
    ["a cron with seconds", { cron: "0 0 * * * *", timezone: "UTC", target: { tool: "ping" } }, ["cron"]],
    ["a cron without a zone", { cron: "0 9 * * *", target: { tool: "ping" } }, ["timezone"]],
    ["an unknown zone", { cron: "0 9 * * *", timezone: "Mars/Olympus", target: { tool: "ping" } }, ["timezone"]],
    ["an unknown tool", { every: "5m", target: { tool: "nope" } }, ["target", "tool"]],
    ["an unknown agent", { every: "5m", target: { agent: "nope", message: "hi" } }, ["target", "agent"]],
    ["an interval under a minute", { every: "30s", target: { tool: "ping" } }, ["every"]],
    ["two kinds", { every: "5m", at: "2030-01-01T00:00:00Z", target: { tool: "ping" } }, ["at"]],
    ["a time in the past", { at: "2000-01-01T00:00:00Z", target: { tool: "ping" } }, ["at"]],
    ["a bad missed policy", { every: "5m", missed: "sometimes", target: { tool: "ping" } }, ["missed"]],
  ];
  it.each(cases)("%s", (_what, input, path) => {
    let error: unknown;
    try {
      checkSchedule(input, known, Date.UTC(2026, 0, 1));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "invalid_schedule", status: 400, details: { path } });
  });
});
