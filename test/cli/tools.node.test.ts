/**
 * `weft tools` says which tools only a model can call (GET /v1/tools's `executionMode`): without
 * it a client tool reads like any other, and `weft tool call` on it is refused tool_not_callable.
 */
import { describe, expect, it } from "vitest";
import { toolLines } from "../../bin/cli/format.ts";

const tool = (over: Record<string, unknown>) =>
  ({ name: "pick_file", description: "Ask the user for a file", inputSchema: { type: "object" }, outputSchema: null, effect: "write", endsTurn: false, needsApproval: false, ...over }) as never;

describe("weft tools lines", () => {
  it("a client tool says its client answers it", () => {
    expect(toolLines(tool({ executionMode: "client" }))[0]).toBe("pick_file (write, client tool: only a model calls it, its client answers): Ask the user for a file");
  });

  it("a provider-executed tool says its provider runs it", () => {
    expect(toolLines(tool({ name: "web_search", executionMode: "provider" }))[0]).toBe("web_search (write, provider tool: only a model calls it, its provider runs it): Ask the user for a file");
  });

  it("a tool weft runs is listed as before", () => {
    expect(toolLines(tool({}))[0]).toBe("pick_file (write): Ask the user for a file");
  });
});
