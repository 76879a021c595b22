/**
 * What misbehaving remote MCP servers get (real MCP SDK servers and plain HTTP answers from
 * scripts/lib/fake-mcp.mjs): each is refused with an `mcp_*` code and offers no tools, a turn
 * that names them still runs, and no header goes to a host it was not declared for.
 */
import { describe, expect, it } from "vitest";
import { RemoteServers } from "../../src/remote/servers.js";
import { registry } from "../generated/registry.js";
import { callsOf, createThread, json, runTurn } from "../helpers.js";

/** Lists `server` from a fresh set of the test registry's servers and returns its problems. */
async function problemsOf(server: string) {
  const servers = new RemoteServers(registry.mcpServers ?? {}, () => false);
  await servers.refresh([server]);
  return { problems: servers.problems(), offered: Object.keys(servers.definitionsFor(server)) };
}

describe("a misbehaving remote MCP server", () => {
  it.each([
    ["down", "mcp_unreachable", /answered HTTP 503/],
    ["html", "mcp_protocol_error", /Unexpected content type: text\/html/],
    ["hang", "mcp_unreachable", /timed out/i],
    ["many", "mcp_protocol_error", /lists more than 256 tools/],
    ["redirect", "mcp_refused", /answered 307, a redirect to http:\/\/elsewhere\.mcp\.test\/mcp/],
  ])("%s is refused with %s and offers no tools", async (server, code, reason) => {
    const { problems, offered } = await problemsOf(server);
    expect(offered).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ server, code });
    expect(problems[0]!.reason).toMatch(reason);
  });

  it("GET /threads/:id names each server that offers nothing in unavailableTools, with why", async () => {
    const id = await createThread({ agent: "bad_mcp" });
    const info = (await json("GET", `/threads/${id}`)).body;
    const byName = Object.fromEntries((info.unavailableTools as Array<{ name: string; reason: string }>).map((u) => [u.name, u.reason]));
    expect(byName.down).toMatch(/^mcp server "down": mcp_unreachable: .*answered HTTP 503/);
    expect(byName.redirect).toMatch(/^mcp server "redirect": mcp_refused: /);
    expect(info.tools.map((t: { name: string }) => t.name)).toContain("remote__lookup");
  });

  it("a redirect is never followed: the other host sees no request and no header", async () => {
    await problemsOf("redirect");
    const seen: Array<Record<string, string>> = await (await fetch("http://elsewhere.mcp.test/__seen")).json();
    // The redirect names http://elsewhere...; user-servers.test.ts adds https://elsewhere... on purpose.
    expect(seen.filter((h) => h[":url"]!.startsWith("http://"))).toEqual([]);
  });

  it("a tool whose schema cannot compile is refused when called; its sibling works", async () => {
    const servers = new RemoteServers(registry.mcpServers ?? {}, () => false);
    await servers.refresh(["badschema"]);
    expect(Object.keys(servers.definitionsFor("badschema")).sort()).toEqual(["badschema__broken", "badschema__fine", "badschema__rpc_fail", "badschema__verbose"]);
    const id = await createThread({ agent: "bad_mcp" });
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "b", name: "badschema__broken", arguments: { code: "x" } },
          { id: "f", name: "badschema__fine", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    const byId = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(byId.b).toMatchObject({ status: "failed" });
    expect(byId.b!.result!.error).toMatch(/^invalid_config: tool "badschema__broken": .*pattern/);
    expect(byId.f).toMatchObject({ status: "succeeded", result: { result: "ok" } });
  });

  it("a turn naming every bad server still runs its good remote tool, and a call to a bad server's tool is an error result", async () => {
    const id = await createThread({ agent: "bad_mcp" });
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "good", name: "remote__lookup", arguments: { id: "9" } },
          { id: "bad", name: "down__anything", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    const byId = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(byId.good).toMatchObject({ status: "succeeded", result: { result: "record 9" } });
    expect(byId.bad).toMatchObject({ status: "failed" });
    // It says why: the server's problem, as GET /v1/tools says it.
    expect(byId.bad!.result!.error).toMatch(/^unknown_tool: unknown tool "down__anything"; available tools: .*; mcp server "down": mcp_unreachable: .*answered HTTP 503/);
  });

  it("a JSON-RPC error answer is an error result with the server's message, its outcome known", async () => {
    const id = await createThread({ agent: "bad_mcp" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "e", name: "badschema__rpc_fail", arguments: {} }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed", attempts: 1 });
    expect(call!.outcome).toBeUndefined();
    expect(call!.result!.error).toBe('mcp server "badschema" (https://badschema.mcp.test) answered JSON-RPC error -32602: MCP error -32602: order 7 does not exist');
  });

  it("an answer larger than the cap is an error result, never read whole", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "h", name: "remote__huge", arguments: { bytes: 10 * 1024 * 1024 } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed", attempts: 1 });
    expect(call!.result!.error).toMatch(/^mcp_protocol_error: .*answered more than 4194304 bytes/);
  });

  it("an answer larger than the cap on an event stream (the MCP SDK server's default) fails at once too, not at its deadline", async () => {
    const id = await createThread({ agent: "remote_changing" });
    const started = Date.now();
    await runTurn(id, "go", [{ toolCalls: [{ id: "h", name: "changing__huge", arguments: { bytes: 10 * 1024 * 1024 } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed", attempts: 1 });
    expect(call!.result!.error).toMatch(/^mcp_protocol_error: .*answered more than 4194304 bytes/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("a server's listing, bounded", () => {
  it("cuts a long description, refuses a huge schema, and names an allowed tool it does not list", async () => {
    const servers = new RemoteServers(registry.mcpServers ?? {}, () => false);
    await servers.refresh(["badschema", "partial"]);
    const verbose = servers.definitionsFor("badschema.verbose").badschema__verbose!;
    expect(verbose.description.length).toBe(2003);
    expect(servers.problems()).toEqual([
      { server: "badschema", tool: "bigschema", code: "mcp_protocol_error", reason: "its inputSchema is larger than 65536 characters" },
      { server: "partial", tool: "missing_tool", code: "mcp_protocol_error", reason: "the tools allow-list names it, but the server does not list it" },
    ]);
    expect(Object.keys(servers.definitionsFor("partial"))).toEqual(["partial__fine"]);
  });
});

describe("listing again", () => {
  it("a failed server is tried again only after FAILED_LIST_RETRY_MS, a good list after LIST_TTL_MS", async () => {
    const { FAILED_LIST_RETRY_MS, LIST_TTL_MS } = await import("../../src/remote/servers.js");
    let now = 1_000_000;
    const servers = new RemoteServers(registry.mcpServers ?? {}, () => false, undefined, () => now);
    expect(await servers.refresh(["hang", "remote"])).toBe(true);
    expect(servers.problems()).toMatchObject([{ server: "hang", code: "mcp_unreachable" }]);
    now += 1000;
    // Neither is due: the hang is not waited for again on the next step.
    const started = Date.now();
    expect(await servers.refresh(["hang", "remote"])).toBe(false);
    expect(Date.now() - started).toBeLessThan(400);
    now += FAILED_LIST_RETRY_MS;
    expect(await servers.refresh(["remote"])).toBe(false);
    expect(await servers.refresh(["hang"])).toBe(true);
    now += LIST_TTL_MS;
    expect(await servers.refresh(["remote"])).toBe(true);
  });
});
