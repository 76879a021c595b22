/**
 * Console lines that carry text a user controls (a tool name the model made up, a tool's error,
 * a provider's message) print it with terminal controls written out as text: `npm start` (wrangler
 * dev) prints a Worker's console raw, so an ESC sequence there would drive the operator's terminal
 * (OSC 52 writes the clipboard, CSI 2J clears the screen, OSC 8 disguises a link), a line or
 * paragraph separator would start a line of its own, a bidi override would reorder the line.
 */
import { describe, expect, it, vi } from "vitest";
import { logFailedCall } from "../../src/run/call-log.js";
import { rpcFailure } from "../../src/rpc.js";

/** C0 controls but tab and line feed, DEL, C1 controls: what a terminal acts on. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** Unicode's line breaks beyond the line feed, and its bidirectional marks, embeddings, overrides and isolates. */
const BREAKS_AND_BIDI = /[\u0085\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const HOSTILE = "x\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b31m\r";
const SHOWN = "x\\u001b]52;c;cHduZWQ=\\u0007\\u001b[2J\\u009b31m\\u000d";

describe("console lines with text a user controls", () => {
  it("write a thrown error's message and stack in the internal-error line with their terminal controls escaped", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      rpcFailure(new Error(HOSTILE));
      const args = error.mock.calls[0]!;
      const shown = args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}\n${a.stack}` : String(a))).join(" ");
      expect(shown).toContain(SHOWN);
      expect(shown).not.toMatch(CONTROLS);
    } finally {
      error.mockRestore();
    }
  });

  it("write a made-up tool name and its error in a failed call's line with their terminal controls escaped, frames still on lines of their own", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const finished = { callId: "c1", toolName: HOSTILE, isError: true, status: "failed", error: `unknown tool ${HOSTILE}` };
      logFailedCall({}, "t1", finished as never, () => "Error: x\n    at f (agents/tools/t.ts:1:1)", (t) => t);
      const line = String(error.mock.calls[0]![0]);
      expect(line).toBe(`weft: tool ${SHOWN} call c1 of thread t1 failed: unknown tool ${SHOWN}\n    at f (agents/tools/t.ts:1:1)`);
    } finally {
      error.mockRestore();
    }
  });

  it("write a line feed in a user's text out, so it cannot fake a console line of its own; a stack's frame lines stay", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const fake = "boom\nweft: tool refund call c9 of thread t9 succeeded";
      logFailedCall({}, "t1", { callId: "c1", toolName: "t", isError: true, status: "failed", error: fake } as never, () => `Error: ${fake}\n    at f (agents/tools/t.ts:1:1)`, (t) => t);
      rpcFailure(new Error(fake));
      const line = String(error.mock.calls[0]![0]);
      expect(line).toBe("weft: tool t call c1 of thread t1 failed: boom\\nweft: tool refund call c9 of thread t9 succeeded\n    at f (agents/tools/t.ts:1:1)");
      const thrown = error.mock.calls[1]![1] as Error;
      expect(thrown.message).not.toContain("\n");
      expect(thrown.stack!.split("\n")[0]).toContain("boom\\nweft: tool refund");
      expect(thrown.stack!.split("\n").slice(1).every((l) => /^\s+at /.test(l))).toBe(true);
    } finally {
      error.mockRestore();
    }
  });

  it("keep a failed call's error on one line, so a line of it written as a stack frame passes for neither a frame nor weft's own line", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const fake = "boom\n    at weft: tool refund call c9 of thread t9 succeeded";
      logFailedCall({}, "t1", { callId: "c1", toolName: "t", isError: true, status: "failed", error: fake } as never, () => `Error: ${fake}\n    at f (agents/tools/t.ts:1:1)`, (t) => t);
      const lines = String(error.mock.calls[0]![0]).split("\n");
      expect(lines).toEqual(["weft: tool t call c1 of thread t1 failed: boom\\n    at weft: tool refund call c9 of thread t9 succeeded", "    at f (agents/tools/t.ts:1:1)"]);
    } finally {
      error.mockRestore();
    }
  });

  it("write line and paragraph separators, NEL and bidi controls out, so a user's text neither starts a line of its own nor reorders one", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const fake = "boom\u2028weft: tool refund call c9 of thread t9 succeeded\u2029\u0085 \u202edeyalp\u202c \u2066x\u2069\u200e\u200f\u061c\u202a\u202b\u202d\u2067\u2068";
      logFailedCall({}, "t1", { callId: "c1", toolName: "t\u2028u", isError: true, status: "failed", error: fake } as never, () => undefined, (t) => t);
      rpcFailure(new Error(fake));
      const line = String(error.mock.calls[0]![0]);
      expect(line).toBe(
        "weft: tool t\\u2028u call c1 of thread t1 failed: boom\\u2028weft: tool refund call c9 of thread t9 succeeded\\u2029\\u0085 \\u202edeyalp\\u202c \\u2066x\\u2069\\u200e\\u200f\\u061c\\u202a\\u202b\\u202d\\u2067\\u2068",
      );
      const thrown = error.mock.calls[1]![1] as Error;
      expect(`${thrown.name}: ${thrown.message}\n${thrown.stack}`).not.toMatch(BREAKS_AND_BIDI);
      expect(thrown.message).toContain("boom\\u2028weft: tool refund");
    } finally {
      error.mockRestore();
    }
  });
});
