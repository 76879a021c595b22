/**
 * A failed tool call reads well in the dev console: one line naming the tool, the call id and the
 * message (src/run/call-log.ts), and stack frames mapped from wrangler's bundle back to the
 * tool's own file under agents/ (scripts/lib/stack-map.mjs).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { mapLine } from "../../scripts/lib/stack-map.mjs";
import { logFailedCall } from "../../src/run/call-log.js";
import { throwerFrame } from "./thrower-bundle.js";

const root = mkdtempSync(path.join(tmpdir(), "weft-stack-map-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const TOOL = ["// a tool", "export default {", "  async execute() {", "    const n = 1;", "    if (n) {", "      throw new Error(\"boom\");", "    }", "  },", "};", ""].join("\n");

describe("stack frames from wrangler's bundle", () => {
  it("map to the line and column in agents/, through the bundle's source map", async () => {
    const frame = await throwerFrame(root, TOOL);
    expect(mapLine(root, frame)).toBe("    at Object.execute (agents/tools/thrower.ts:6:7)");
    expect(mapLine(root, "    at fetch (node:internal/deps:1:2)")).toBe("    at fetch (node:internal/deps:1:2)");
  });
});

describe("the console line of a failed call", () => {
  const finished = { callId: "tool_thrower_1", toolName: "thrower", source: "direct", status: "failed", isError: true, error: "boom", durationMs: 1, attempts: 1 } as const;
  const stack = "Error: boom\n    at Object.execute (file:///p/src/generated/agents/tools/thrower.ts:6:13)\n    at runCall (file:///p/.wrangler/tmp/dev-1/worker.js:9:9)";

  it("names the tool, the call id, its thread and the message, then the frames", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    logFailedCall({}, "t1", finished as never, () => stack, (t) => t);
    expect(error.mock.calls).toEqual([
      ["weft: tool thrower call tool_thrower_1 of thread t1 failed: boom\n    at Object.execute (agents/tools/thrower.ts:6:13)\n    at runCall (file:///p/.wrangler/tmp/dev-1/worker.js:9:9)"],
    ]);
  });

  it("prints nothing for a success, a denial, or with WEFT_LOG_FAILED_CALLS off; redacts what it prints", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    logFailedCall({}, "t1", { ...finished, isError: false } as never, () => stack, (t) => t);
    logFailedCall({}, "t1", { ...finished, status: "denied", error: "denied by dev: wrong amount" } as never, () => undefined, (t) => t);
    logFailedCall({ WEFT_LOG_FAILED_CALLS: "off" }, "t1", finished as never, () => stack, (t) => t);
    expect(error).not.toHaveBeenCalled();
    logFailedCall({}, "t1", { ...finished, error: "key sk-123 refused" } as never, () => undefined, (t) => t.replace("sk-123", "[redacted]"));
    expect(error.mock.calls).toEqual([["weft: tool thrower call tool_thrower_1 of thread t1 failed: key [redacted] refused"]]);
  });
});
