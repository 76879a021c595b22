/**
 * A server that restarts between a session's `initialize` and the client's
 * `notifications/initialized` answers that notification 404: the session it just opened is gone.
 * The MCP specification (2025-06-18, Transports > Session Management) asks a client that gets 404
 * for a request carrying its session id to start a new session; weft does so once, for a listing
 * and for a call, as it does for a session forgotten later. Server: `restarting.mcp.test`
 * (scripts/lib/fake-mcp.mjs), which forgets the first session of each `tag` in its URL.
 */
import { describe, expect, it } from "vitest";
import { RemoteConnection } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";

const restarting = (tag: string) => new RemoteConnection("restarting", defineMcpServer({ url: `https://restarting.mcp.test/mcp?tag=${tag}` }));

/** Calls restarting.mcp.test received of `tool` with `tag`. */
async function received(tool: string, tag: string): Promise<number> {
  return ((await (await fetch("http://restarting.mcp.test/__calls")).json()) as Record<string, number>)[`${tool}:${tag}`] ?? 0;
}

describe("a server restarted while a session was opened", () => {
  it("lists its tools through a new session", async () => {
    const tools = await restarting(`rs-list-${crypto.randomUUID().slice(0, 8)}`).listTools();
    expect(tools.map((t) => t.name)).toContain("lookup");
  });

  it("takes a call through a new session, sent once", async () => {
    const tag = `rs-call-${crypto.randomUUID().slice(0, 8)}`;
    const answer = await restarting(tag).callTool("create_order", { item: "tea", tag }, new AbortController().signal);
    expect(answer.content).toEqual([{ type: "text", text: "order for tea created" }]);
    expect(await received("create_order", tag)).toBe(1);
  });
});
