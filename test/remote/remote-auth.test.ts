/**
 * A remote MCP server behind a bearer token from the thread's env: the token goes only to the
 * server, the thread's redactor holds it (a server echoing it shows no secret), and a missing or
 * refused token is `mcp_auth_required`.
 */
import { describe, expect, it } from "vitest";
import { RemoteServers } from "../../src/remote/servers.js";
import { registry } from "../generated/registry.js";
import { callsOf, createThread, eventsOf, runTurn } from "../helpers.js";

const TOKEN = "s3cret-mcp-token";

describe("a remote MCP server behind a bearer token", () => {
  it("sends the thread's token and redacts it wherever the server echoes it", async () => {
    const id = await createThread({ agent: "remote_mcp", env: { MCP_TOKEN: { value: TOKEN, type: "secret" } } });
    await runTurn(id, "who am I", [{ toolCalls: [{ id: "w", name: "secured__whoami", arguments: {} }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "succeeded" });
    expect(call!.result!.result).toMatch(/^you sent Bearer /);
    expect(JSON.stringify(call)).not.toContain(TOKEN);
    expect(JSON.stringify(await eventsOf(id))).not.toContain(TOKEN);
  });

  it("offers none of its tools without a token, or with one the server refuses: mcp_auth_required", async () => {
    const none = new RemoteServers(registry.mcpServers ?? {}, () => false);
    await none.refresh(["secured"]);
    expect(none.problems()).toMatchObject([{ server: "secured", code: "mcp_auth_required" }]);
    const wrong = new RemoteServers(registry.mcpServers ?? {}, () => false, async () => "not-the-token");
    await wrong.refresh(["secured"]);
    expect(wrong.problems()).toMatchObject([{ server: "secured", code: "mcp_auth_required", reason: expect.stringContaining("answered 401") }]);
    expect(wrong.definitionsFor("secured")).toEqual({});

    const id = await createThread({ agent: "remote_mcp" });
    await runTurn(id, "look", [{ toolCalls: [{ id: "l", name: "secured__lookup", arguments: { id: "1" } }] }, { text: "done" }]);
    expect((await callsOf(id))[0]!.result!.error).toMatch(/^unknown_tool: /);
  });
});
