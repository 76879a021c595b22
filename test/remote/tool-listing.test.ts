/**
 * `GET /v1/tools` lists the tools of the registry's MCP servers (test/fixtures/mcp/) under
 * `remote`, beside the local tools, for the caller: each with its server and effect class (the
 * author's override, else the server's annotations), the servers that offer fewer with the code
 * and reason, an OAuth server's tools only for a user connected to it, and no credential in it.
 */
import { describe, expect, it } from "vitest";
import { type TestUser, json, request, stubOf, until } from "../helpers.js";
import { completeAs } from "./oauth-flow.js";

type Listed = { name: string; server?: string; effect: string; needsApproval: boolean | string; inputSchema: Record<string, unknown> };
type Listing = { tools: Listed[]; configHash: string; remote: { tools: Listed[]; problems: Array<{ server: string; tool?: string; code: string; reason: string }> } };

const listingAs = async (as: TestUser) => {
  const answer = await json<Listing>("GET", "/v1/tools", undefined, as);
  expect(answer.status).toBe(200);
  return answer.body;
};

describe("GET /v1/tools with remote MCP servers", () => {
  it("lists each server's tools beside the local ones, with server and effect; the servers that offer fewer say why", async () => {
    const body = await listingAs("tester");
    // The local tools stay as they were: no remote tool among them.
    expect(body.tools.filter((t) => t.name.startsWith("remote__") || t.name.startsWith("oauthed__"))).toEqual([]);
    expect(body.tools.find((t) => t.name === "clash__lookup")?.server).toBeUndefined();
    const remote = (name: string) => body.remote.tools.find((t) => t.name === name);
    // The server's annotations: readOnlyHint is a read, idempotentHint idempotent, no hint a write.
    expect(remote("remote__lookup")).toMatchObject({ server: "remote", effect: "read", inputSchema: { type: "object", properties: { id: { type: "string" } } } });
    expect(remote("remote__set_flag")).toMatchObject({ server: "remote", effect: "idempotent" });
    expect(remote("remote__create_order")).toMatchObject({ server: "remote", effect: "write", needsApproval: false });
    // The author's override wins; the allow-list and needsApproval apply.
    expect(remote("overridden__lookup")).toMatchObject({ server: "overridden", effect: "write" });
    expect(body.remote.tools.filter((t) => t.server === "careful").map((t) => [t.name, t.needsApproval])).toEqual([["careful__create_order", true]]);
    // A server with weft's effect-key extension: its writes are idempotent.
    expect(body.remote.tools.filter((t) => t.server === "weftlike" && t.effect === "write")).toEqual([]);
    // Sorted by name.
    const names = body.remote.tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    // The ones that list fewer or none, with the codes a thread's run records.
    const problem = (server: string) => body.remote.problems.filter((p) => p.server === server).map((p) => p.code);
    expect(problem("down")).toEqual(["mcp_unreachable"]);
    expect(problem("many")).toEqual(["mcp_protocol_error"]);
    expect(problem("html")).toEqual(["mcp_protocol_error"]);
    expect(problem("redirect")).toEqual(["mcp_refused"]);
    expect(problem("partial")).toEqual(["mcp_protocol_error"]);
    expect(body.remote.problems.find((p) => p.server === "partial")).toMatchObject({ tool: "missing_tool" });
    // A name taken by a local tool is refused, never shadowing it.
    expect(body.remote.problems.find((p) => p.server === "clash")).toMatchObject({ tool: "lookup", code: "mcp_name_collision" });
    // A bearer token nowhere set for this user: the server is not listed, and says which value is missing.
    expect(body.remote.problems.find((p) => p.server === "secured")).toMatchObject({ code: "mcp_auth_required", reason: expect.stringContaining('"MCP_TOKEN" is not set') });
    // A declared header's value is never shown, whatever the server says back.
    expect(JSON.stringify(body)).not.toContain("hdr-key-5f3a9c71e2");
    expect(JSON.stringify(body)).not.toContain("sekret-for-redirect-only");
  });

  it("uses the caller's own account env for a bearer token, and shows it nowhere", async () => {
    // The token auth.mcp.test takes (test/remote/remote-auth.test.ts sets it on a thread instead).
    const token = "s3cret-mcp-token";
    expect((await json("PUT", "/account/env/MCP_TOKEN", { value: token }, "root")).status).toBe(200);
    try {
      const body = await listingAs("root");
      expect(body.remote.tools.find((t) => t.name === "secured__whoami")).toMatchObject({ server: "secured", effect: "read" });
      expect(body.remote.problems.some((p) => p.server === "secured")).toBe(false);
      expect(JSON.stringify(body)).not.toContain(token);
    } finally {
      await json("DELETE", "/account/env/MCP_TOKEN", undefined, "root");
    }
  });

  it("lists an OAuth server's tools only for a user connected to it, at once after connecting and after revoking", async () => {
    await json("DELETE", "/account/mcp-connections/oauthed", undefined, "root");
    const before = await listingAs("root");
    // Not connected: only the tool that asks for the connection, and why; no authorization is started.
    expect(before.remote.tools.filter((t) => t.server === "oauthed").map((t) => t.name)).toEqual(["oauthed__connect"]);
    expect(before.remote.problems.find((p) => p.server === "oauthed")).toMatchObject({ code: "mcp_auth_required" });

    // root connects, as a user does: a call parks with the URL, the browser authorizes and comes back.
    const made = await json<{ threadId: string }>("POST", "/threads", { agent: "remote_oauth" }, "root");
    const threadId = made.body.threadId;
    await json("POST", `/threads/${threadId}/messages`, { content: "connect", script: [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }] }, "root");
    await stubOf(threadId).waitIdle();
    const calls = async () => (await json<{ calls: Array<{ status: string; parkReason?: string }> }>("GET", `/threads/${threadId}/calls`, undefined, "root")).body.calls;
    const url = new URL(/open (https:\/\/\S+)/.exec((await calls())[0]!.parkReason!)![1]!);
    url.searchParams.set("login", "root-there");
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location")!);
    expect((await completeAs(back.pathname + back.search, "root")).status).toBe(200);
    await until(async () => (await calls())[0]!.status === "succeeded", "root's connect call to finish");
    await stubOf(threadId).waitIdle();

    const after = await listingAs("root");
    expect(after.remote.tools.filter((t) => t.server === "oauthed").map((t) => [t.name, t.effect])).toEqual([
      ["oauthed__connect", expect.any(String)],
      ["oauthed__lookup", "read"],
      ["oauthed__whoami", "read"],
    ]);
    expect(after.remote.problems.some((p) => p.server === "oauthed")).toBe(false);
    expect(JSON.stringify(after)).not.toMatch(/at-[0-9a-f-]{36}/);

    // Revoked: the listing no longer offers what root cannot call.
    expect((await json("DELETE", "/account/mcp-connections/oauthed", undefined, "root")).body).toEqual({ deleted: true });
    expect((await listingAs("root")).remote.tools.filter((t) => t.server === "oauthed").map((t) => t.name)).toEqual(["oauthed__connect"]);
  });

  it("answers without credentials as every route does", async () => {
    expect((await request("/v1/tools", undefined, null)).status).toBe(401);
  });
});
