/**
 * What `weft thread tail` and `--follow` print for an operator reading an incident: a failed
 * call's code once (the recorded error already starts with it), and a failed or stopped turn's code.
 */
import { expect, it } from "vitest";
import { frameLine } from "../../bin/cli/format.ts";

const at = "2026-12-06T00:00:00.000Z";

it("names a failed call's code once, whether or not its error starts with it", () => {
  const finished = (error: string) =>
    frameLine({ seq: 6, type: "tool_call_finished", at, data: { callId: "m1", toolName: "almanac__moon_phase", source: "model", status: "failed", isError: true, durationMs: 2, attempts: 0, error, errorCode: "unknown_tool" } } as never);
  expect(finished('unknown_tool: unknown tool "almanac__moon_phase"')).toBe('   6 ← almanac__moon_phase failed in 2 ms: unknown_tool: unknown tool "almanac__moon_phase"');
  expect(finished('unknown tool "almanac__moon_phase"')).toBe('   6 ← almanac__moon_phase failed in 2 ms: unknown_tool: unknown tool "almanac__moon_phase"');
});

it("names the code a turn ended with", () => {
  const line = frameLine({ seq: 9, type: "turn_finished", at, data: { turnId: "t", status: "failed", steps: 0, error: "WEFT_BUDGETS.0.period: expected one of turn", errorCode: "invalid_config" } } as never);
  expect(line).toBe("   9 turn failed after 0 steps (invalid_config): WEFT_BUDGETS.0.period: expected one of turn");
});
