/**
 * Remote MCP servers that act against the deployment: one that says back a secret header of its
 * declaration (in a tool's description, a call's answer, a JSON-RPC error) and one whose call
 * answer is an event stream without end. The header never comes back out of weft (events,
 * messages, calls, listings); the endless answer fails the call at its deadline.
 */
import { describe, expect, it } from "vitest";
import { RemoteServers } from "../../src/remote/servers.js";
import { registry } from "../generated/registry.js";
import { callsOf, createThread, eventsOf, json, messagesOf, runTurn } from "../helpers.js";

const KEY = "hdr-key-5f3a9c71e2";

describe("a server that says back a declared header", () => {
  it("its listing carries no header value", async () => {
    const servers = new RemoteServers(registry.mcpServers ?? {}, () => false);
    await servers.refresh(["leaky"]);
    const defs = servers.definitionsFor("leaky");
    expect(Object.keys(defs).sort()).toEqual(["leaky__echo", "leaky__fail"]);
    expect(JSON.stringify(defs.leaky__echo!.description)).not.toContain(KEY);
    expect(defs.leaky__echo!.description).toContain("[redacted]");
    expect(JSON.stringify(defs.leaky__echo!.args)).not.toContain(KEY);
  });

  it("a call's answer and a JSON-RPC error name no header value, in calls, messages, events or the thread's routes", async () => {
    const id = await createThread({ agent: "hostile_mcp" });
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "e", name: "leaky__echo", arguments: {} },
          { id: "f", name: "leaky__fail", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    const byId = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(byId.e).toMatchObject({ status: "succeeded" });
    // The server got the header (it was sent), and what it said back is cleaned of it.
    expect(String(byId.e!.result!.result)).toContain('"x-api-key":"[redacted]"');
    expect(byId.f).toMatchObject({ status: "failed" });
    expect(byId.f!.result!.error).toContain("the key [redacted] is not allowed");
    const everything = JSON.stringify([await callsOf(id), await messagesOf(id), await eventsOf(id), (await json("GET", `/threads/${id}`)).body, (await json("GET", `/threads/${id}/calls`)).body]);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(0, 12));
  });
});

describe("a server whose answer never ends", () => {
  // That the stream is cut (closed, read no further) is seen from a real server in fetch.node.test.ts.
  it("the call fails at its deadline; the turn goes on", async () => {
    const id = await createThread({ agent: "hostile_mcp" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "t", name: "trickle__lookup", arguments: { id: "1" } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    // A read past its deadline: retried under the effect table, then failed as timed out.
    expect(call).toMatchObject({ status: "failed", attempts: 3 });
    expect(call!.result!.error).toMatch(/timed out|^mcp_unreachable: /);
    expect((await messagesOf(id)).at(-1)).toMatchObject({ role: "assistant", content: "done" });
  });
});

describe("a server that goes away mid-answer", () => {
  // The MCP SDK reports a broken event stream only to onerror and leaves its request waiting.
  it("the call fails at once as mcp_unreachable, not at its deadline", async () => {
    const id = await createThread({ agent: "hostile_mcp" });
    const started = Date.now();
    await runTurn(id, "go", [{ toolCalls: [{ id: "d", name: "dropping__lookup", arguments: { id: "1" } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    // A write: sent once, its outcome unknown; the deadline is 8 s.
    expect(call).toMatchObject({ status: "failed", attempts: 1 });
    expect(call!.result!.error).toMatch(/^mcp_unreachable: .*before answering the request/);
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
