// What a tool definition that cannot run is refused with (checkToolDefinition), in plain Node.
import { describe, expect, it } from "vitest";
import { WeftError } from "../../src/errors.js";
import { checkToolDefinition } from "../../src/tools/define.js";

const codeOf = (def: unknown): string | undefined => {
  try {
    checkToolDefinition("no_body", def);
    return undefined;
  } catch (e) {
    return e instanceof WeftError ? e.code : String(e);
  }
};

describe("a tool definition without a body", () => {
  it("is refused with capability_missing: weft has nothing to run", () => {
    expect(codeOf({ kind: "tool", description: "has no execute" })).toBe("capability_missing");
    expect(codeOf({ kind: "tool", description: "execute is not a function", execute: "run" })).toBe("capability_missing");
  });

  it("leaves the option rules on invalid_config", () => {
    const execute = async () => ({ status: "success" });
    expect(codeOf({ kind: "tool", description: "d", execute, effect: "write", dedupWindowMs: 1000 })).toBe("invalid_config");
    expect(codeOf({ kind: "tool", description: "d", execute, effect: "idempotent" })).toBe("invalid_config");
    expect(codeOf({ kind: "tool", description: "d", execute })).toBeUndefined();
  });

  it("refuses a dryRunResult or needsApproval of the wrong type at the build, not at each call", () => {
    const execute = async () => ({ status: "success" });
    const message = (def: unknown) => {
      try {
        checkToolDefinition("water", def);
      } catch (e) {
        return e instanceof WeftError ? `${e.code}: ${e.message}` : String(e);
      }
    };
    expect(message({ kind: "tool", description: "d", execute, effect: "write", dryRunResult: "Watering simulated." })).toMatch(/^invalid_config: tool "water": dryRunResult must be a function/);
    expect(message({ kind: "tool", description: "d", execute, needsApproval: "yes" })).toMatch(/^invalid_config: tool "water": needsApproval must be true, false or a function/);
    expect(message({ kind: "tool", description: "d", execute, effect: "write", dryRunResult: () => "ok", needsApproval: () => true })).toBeUndefined();
  });
});
