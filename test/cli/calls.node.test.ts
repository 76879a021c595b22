/**
 * `weft calls` names the command that moves each waiting call: approve or deny for an approval,
 * settle for a call parked for a person, answer for a client tool's call waiting for its client;
 * `weft waiting` says the same for each call of the caller's inbox.
 */
import { describe, expect, it } from "vitest";
import { CLIENT_WAIT_REASON, callLine, waitingLine } from "../../bin/cli/calls.ts";
import { CLIENT_WAIT_REASON as RUNTIME_REASON } from "../../src/calls/client.js";

const T = "t1";
const call = (over: Record<string, unknown>) => ({ callId: "c1", toolName: "pick_file", status: "parked", input: { prompt: "a file" }, ...over }) as never;

describe("weft calls lines", () => {
  it("a client tool's waiting call says to answer it, not to settle it", () => {
    const line = callLine(T, call({ parkReason: RUNTIME_REASON }));
    expect(line).toBe(`c1 pick_file parked {"prompt":"a file"}  (waiting for the client's answer (a client tool); npx weft answer t1 c1 --result <json>|--error <text>)`);
    expect(line).not.toContain("weft settle");
  });

  it("a call parked for a person still says to settle it", () => {
    expect(callLine(T, call({ toolName: "effect_write", parkReason: "the thread was stopped while it ran" }))).toContain("npx weft settle t1 c1 --succeeded <result>|--failed <error>|--retry");
  });

  it("knows the runtime's park reason of a client tool's call (one text, two places)", () => {
    expect(CLIENT_WAIT_REASON).toBe(RUNTIME_REASON);
  });

  it("weft waiting prints each inbox call's agent and the command that moves it, in its thread", () => {
    const waiting = (over: Record<string, unknown>) => ({ threadId: "t9", agentId: "shop", callId: "pay", toolName: "refund_order", status: "awaiting_approval", since: 1, ...over }) as never;
    expect(waitingLine(waiting({}))).toBe("shop pay refund_order awaiting_approval  (npx weft approve t9 pay, or npx weft deny)");
    expect(waitingLine(waiting({ callId: "pick", toolName: "pick_file", status: "parked", reason: RUNTIME_REASON }))).toContain("weft answer t9 pick --result <json>|--error <text>");
  });
});
