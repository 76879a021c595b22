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

function refusal(sent: Record<string, unknown>): string | undefined {
  const checked = validateInput(tool, sent);
  if (!checked.ok) throw checked.error;
  try {
    checkTimeArgs(tool, sent, checked.input, ASOF);
    return undefined;
  } catch (e) {
    return e instanceof WeftError ? `${e.code}: ${e.message}` : String(e);
  }
}

describe("timeArgs under asOf", () => {
  it("refuses a call that omits a bound, even one the schema would default", () => {
    expect(refusal({ since: "2024-05-01T00:00:00Z" })).toMatch(/^invalid_tool_input: until: required in a thread frozen at/);
  });

  it("takes a call that sends every bound, absolute and not later than asOf", () => {
    expect(refusal({ since: "2024-05-01T00:00:00Z", until: "2024-05-02T00:00:00+02:00" })).toBeUndefined();
    expect(refusal({ since: "2024-05-01T00:00:00Z", until: "2024-07-01T00:00:00Z" })).toMatch(/later than the thread's asOf/);
  });
});
