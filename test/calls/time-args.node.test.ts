/** `timeArgs` under `asOf`: what the call sent is judged, so an omitted bound is refused even when the schema has a default. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkTimeArgs } from "../../src/calls/time-args.js";
import { validateInput } from "../../src/calls/input.js";
import { compileTool } from "../../src/tools/catalog.js";
import { defineTool } from "../../src/tools/define.js";
import { WeftError } from "../../src/errors.js";

const ASOF = "2024-06-01T00:00:00Z";
const tool = compileTool(
  "telemetry",
  defineTool({
    description: "Query telemetry between two instants.",
    args: z.object({ since: z.string(), until: z.string().default("2024-05-31T00:00:00Z") }),
    effect: "read",
    timeArgs: ["since", "until"],
    execute: async () => ({ status: "success", result: "[]" }),
  }),
);

/** Why `of` refuses a call that sent `sent` under {@link ASOF}, or undefined when it takes it. */
function refusalOf(of: ReturnType<typeof compileTool>, sent: Record<string, unknown>): string | undefined {
  const checked = validateInput(of, sent);
  if (!checked.ok) throw checked.error;
  try {
    checkTimeArgs(of, sent, checked.input, ASOF);
    return undefined;
  } catch (e) {
    return e instanceof WeftError ? `${e.code}: ${e.message}` : String(e);
  }
}

const refusal = (sent: Record<string, unknown>) => refusalOf(tool, sent);

describe("timeArgs under asOf", () => {
  it("refuses a call that omits a bound, even one the schema would default", () => {
    expect(refusal({ since: "2024-05-01T00:00:00Z" })).toMatch(/^invalid_tool_input: until: required in a thread frozen at/);
  });

  it("takes a call that sends every bound, absolute and not later than asOf", () => {
    expect(refusal({ since: "2024-05-01T00:00:00Z", until: "2024-05-02T00:00:00+02:00" })).toBeUndefined();
    expect(refusal({ since: "2024-05-01T00:00:00Z", until: "2024-07-01T00:00:00Z" })).toMatch(/later than the thread's asOf/);
  });
});

describe("timeArgs under asOf, a z.coerce.date() bound", () => {
  const dated = compileTool(
    "since_date",
    defineTool({
      description: "Query since a date.",
      args: z.object({ since: z.coerce.date() }),
      effect: "read",
      timeArgs: ["since"],
      execute: async () => ({ status: "success", result: "[]" }),
    }),
  );
  const judged = (sent: Record<string, unknown>) => refusalOf(dated, sent);

  it("refuses a number the schema coerces to a Date: what was sent is no ISO-8601 instant", () => {
    expect(judged({ since: Date.parse("2024-05-01T00:00:00Z") })).toMatch(/^invalid_tool_input: since: 1714521600000 is not an absolute instant/);
  });

  it("takes ISO text with an offset, and a Date given by code (an instant)", () => {
    expect(judged({ since: "2024-05-01T00:00:00Z" })).toBeUndefined();
    expect(judged({ since: new Date("2024-05-01T00:00:00Z") })).toBeUndefined();
  });
});
