/**
 * checkSchedule's size rules, the same for a file at build, a tool's state.schedule and the HTTP
 * route: a target carries at most what a direct call's input or a posted message may
 * (WEFT_MAX_TOOL_INPUT_BYTES, WEFT_MAX_MESSAGE_BYTES), measured as stored.
 */
import { describe, expect, it } from "vitest";
import { checkSchedule, checkScheduleDefinition, defineSchedule, scheduleLimitsOf } from "../../src/schedules/define.js";
import { Redactor } from "../../src/secrets/redact.js";

const known = { agent: (n: string) => n === "desk", tool: (n: string) => n === "notify" };
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    const err = e as { code: string; details: unknown };
    return [err.code, err.details];
  }
  return null;
};

describe("a schedule's target size", () => {
  it("a deployment's smaller limits hold for the message and the input, as stored", () => {
    const limits = scheduleLimitsOf({ WEFT_MAX_MESSAGE_BYTES: "1000", WEFT_MAX_TOOL_INPUT_BYTES: "2000" });
    expect(limits).toEqual({ messageBytes: 1000, toolInputBytes: 2000 });
    // Each quote is two bytes as stored JSON: 500 of them fill the 1,000 bytes, 501 are over.
    expect(checkSchedule({ every: "1h", target: { agent: "desk", message: '"'.repeat(500) } }, known, undefined, limits).target).toMatchObject({ agent: "desk" });
    expect(refusal(() => checkSchedule({ every: "1h", target: { agent: "desk", message: '"'.repeat(501) } }, known, undefined, limits))).toEqual(["payload_too_large", { path: ["target", "message"], limit: 1000 }]);
    expect(refusal(() => checkSchedule({ every: "1h", target: { tool: "notify", input: { t: "x".repeat(2000) } } }, known, undefined, limits))).toEqual(["payload_too_large", { path: ["target", "input"], limit: 2000 }]);
    // A deployment cannot raise them past what one row holds, nor a schedule's input past 64 KiB.
    expect(scheduleLimitsOf({ WEFT_MAX_TOOL_INPUT_BYTES: String(64 * 1024 * 1024) }).toolInputBytes).toBe(64 * 1024);
  });

  it("a schedule file's input is held to the default at build", () => {
    const def = defineSchedule({ every: "1h", target: { tool: "notify", input: { t: "\u0001".repeat(200_000) } } });
    expect(() => checkScheduleDefinition("huge", def, known)).toThrow(/schedule "huge": target\.input: 1200008 bytes as stored \(JSON\), over the 65536-byte limit \(a schedule's input, 64 KiB\)/);
    expect(refusal(() => checkScheduleDefinition("fn", defineSchedule({ every: "1h", target: { tool: "notify", input: () => 1 } }), known))).toEqual(["invalid_schedule", { path: ["target", "input"] }]);
  });
});

describe("a schedule's target as kept", () => {
  const r = new Redactor([{ name: "KEY", value: "sk-rotating-1" }]);
  const keep = <T>(value: T): T => r.value(value);

  it("a message and an input come back redacted (a secret rotated later is not in the row), their shape kept", () => {
    expect(checkSchedule({ every: "1h", target: { agent: "desk", message: "use sk-rotating-1 now" } }, known, undefined, undefined, keep).target).toEqual({ agent: "desk", message: "use [redacted] now" });
    const input = { auth: { header: 'Bearer sk-rotating-1"' }, list: ["sk-rotating-1", 2] };
    expect(checkSchedule({ every: "1h", target: { tool: "notify", input } }, known, undefined, undefined, keep).target).toEqual({ tool: "notify", input: { auth: { header: 'Bearer [redacted]"' }, list: ["[redacted]", 2] } });
    // Given as it was written: not changed in place.
    expect(input.list[0]).toBe("sk-rotating-1");
  });

  it("is measured as kept: a secret's marker may take more bytes than the secret", () => {
    const limits = { messageBytes: 1000, toolInputBytes: 70 };
    // Each 6-character secret becomes the 10 characters of the marker: 61 bytes as written, 85 as kept.
    const short = new Redactor([{ name: "K", value: "abcdef" }]);
    const grow = <T>(value: T): T => short.value(value);
    const input = { t: Array(6).fill("abcdef") };
    expect(JSON.stringify(input).length).toBe(61);
    expect(checkSchedule({ every: "1h", target: { tool: "notify", input } }, known, undefined, limits).target).toEqual({ tool: "notify", input });
    expect(refusal(() => checkSchedule({ every: "1h", target: { tool: "notify", input } }, known, undefined, limits, grow))).toEqual(["payload_too_large", { path: ["target", "input"], limit: 70 }]);
  });
});
