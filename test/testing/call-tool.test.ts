/**
 * weft/testing's `thread.callTool`: a direct call in the test thread, through the pipeline a
 * model's call takes (validated, journaled, recorded in the thread), with no model and no turn.
 */
import { describe, expect, it } from "vitest";
import { WeftClientError } from "../../src/client/index.js";
import { createTestThread } from "../../src/testing/index.js";
import { API_KEYS } from "../keys.js";

const token = API_KEYS.tester;

describe("thread.callTool", () => {
  it("runs the tool in the thread and records the call, refuses a bad input at its path, and leaves an approval waiting", async () => {
    const thread = await createTestThread({ token });
    expect(await thread.callTool("person", { name: "Ada", age: 36 })).toMatchObject({ isError: false, result: JSON.stringify({ name: "Ada", age: 36 }) });
    expect((await thread.calls("person")).map((c) => c.status)).toEqual(["succeeded"]);

    const refused = await thread.callTool("person", { name: "Ada", age: "36" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WeftClientError);
    expect(refused).toMatchObject({ code: "invalid_tool_input", details: { path: ["age"] } });

    const waiting = await thread.callTool("needs_ok", { amount: 500 });
    expect(waiting).toMatchObject({ status: "awaiting_approval" });
    expect((await thread.pendingApprovals()).map((c) => c.toolName)).toEqual(["needs_ok"]);
  });
});
