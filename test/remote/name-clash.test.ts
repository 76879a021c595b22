/**
 * Two of a user's servers that make the same tool name (`a` offering `b__c`, `a__b` offering `c`:
 * both `a__b__c`): neither is offered in place of the other; `GET /v1/tools` says the collision
 * (`mcp_name_collision`) for both, and a call of the name is refused as an unknown tool, nothing
 * sent. Users: `clash-*`. Server: `dunder.mcp.test` (scripts/lib/fake-mcp.mjs).
 */
import { describe, expect, it } from "vitest";
import { as, threadOf, turn } from "./user-flow.js";

describe("tool names two of a user's servers both make", () => {
  it("are offered by neither, and said as a collision", async () => {
    const u = `clash-${crypto.randomUUID().slice(0, 6)}`;
    expect((await as(u, "POST", "/mcp-servers", { name: "a", url: "https://dunder.mcp.test/mcp", tools: ["b__c"] })).status).toBe(200);
    expect((await as(u, "POST", "/mcp-servers", { name: "a__b", url: "https://dunder.mcp.test/mcp", tools: ["c"] })).status).toBe(200);
    const listed = (await as(u, "GET", "/v1/tools")).body.remote as { tools: Array<{ name: string }>; problems: Array<{ server: string; tool?: string; code: string }> };
    expect(listed.tools.map((t) => t.name)).not.toContain("a__b__c");
    expect(listed.problems.filter((p) => p.code === "mcp_name_collision" && (p.server === "a" || p.server === "a__b")).map((p) => [p.server, p.tool]).sort()).toEqual([
      ["a", "b__c"],
      ["a__b", "c"],
    ]);
    const id = await threadOf(u);
    const calls = await turn(u, id, [{ toolCalls: [{ id: "d1", name: "a__b__c", arguments: {} }] }, { text: "done" }]);
    const d1 = calls.find((c) => c.callId === "d1")!;
    expect(d1.result?.status).toBe("error");
    expect(d1.result?.error).toMatch(/unknown_tool/);
  });
});
