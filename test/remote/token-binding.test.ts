/**
 * A connection belongs to the definition that made it (server name, URL and `auth`): a server a
 * user adds at the URL of a declared one gets no token of the declared one's (got through the
 * deployment's pre-registered client and allow-list), nor the other way round; revoking by name
 * removes exactly what that name uses; removing a user's server leaves a declared server of the
 * same URL connected. Users: `bind-*`. Declared servers: test/fixtures/mcp/oauthed.ts, oauthpre.ts.
 */
import { describe, expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { as, authorize, callsOf, threadOf, turn, until } from "./user-flow.js";

const connect = (id: string, server: string) => [{ toolCalls: [{ id, name: `${server}__connect`, arguments: {} }] }, { text: "waiting" }];

async function connected(u: string, threadId: string, server: string, callId: string): Promise<void> {
  const calls = await turn(u, threadId, connect(callId, server));
  const parked = calls.find((c) => c.callId === callId)!;
  expect(parked.status).toBe("parked");
  await authorize(parked.parkReason, u);
  await until(async () => (await callsOf(u, threadId)).find((c) => c.callId === callId)!.status === "succeeded", `${server} connected`);
  await stubOf(threadId).waitIdle();
}

describe("a connection bound to the definition that made it", () => {
  it("is not used by a declared server at the same URL, and revoking the declared name stops the declared one", async () => {
    const u = `bind-rev-${crypto.randomUUID().slice(0, 6)}`;
    expect((await as(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await threadOf(u, "remote_oauth");
    await connected(u, id, "mine", "c");
    // The declared oauthed (same URL) has no connection of its own: its connect parks for one.
    let calls = await turn(u, id, connect("c2", "oauthed"));
    expect(calls.find((c) => c.callId === "c2")).toMatchObject({ status: "parked", parkReason: expect.stringMatching(/^mcp_auth_required: mcp server "oauthed" needs your authorization/) });
    await authorize(calls.find((c) => c.callId === "c2")!.parkReason, u);
    await until(async () => (await callsOf(u, id)).find((c) => c.callId === "c2")!.status === "succeeded", "oauthed connected");
    await stubOf(id).waitIdle();
    calls = await turn(u, id, [{ toolCalls: [{ id: "w1", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w1")!.status).toBe("succeeded");
    const listed = (await as<{ connections: Array<{ server: string; url: string }> }>(u, "GET", "/account/mcp-connections")).body.connections;
    expect(listed.map((c) => c.server).sort()).toEqual(["mine", "oauthed"]);
    // Revoking the declared name: the declared server sends no token any more; the user's own keeps its own.
    expect((await as(u, "DELETE", "/account/mcp-connections/oauthed")).body).toEqual({ deleted: true });
    calls = await turn(u, id, [{ toolCalls: [{ id: "w2", name: "oauthed__whoami", arguments: {} }] }, { text: "done" }]);
    expect(calls.find((c) => c.callId === "w2")!.status).toBe("parked");
    expect((await as<{ connections: Array<{ server: string }> }>(u, "GET", "/account/mcp-connections")).body.connections.map((c) => c.server)).toEqual(["mine"]);
    await as(u, "POST", `/threads/${id}/stop`, {});
  });

  it("never gives a server a user adds the token of the declared server at its URL (pre-registered client, allow-list)", async () => {
    const u = `bind-pre-${crypto.randomUUID().slice(0, 6)}`;
    const id = await threadOf(u, "remote_oauth");
    await connected(u, id, "oauthpre", "c");
    expect((await as(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauthpre.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const calls = await turn(u, id, [{ toolCalls: [{ id: "o1", name: "mine__connect", arguments: {} }] }, { text: "done" }]);
    const o1 = calls.find((c) => c.callId === "o1")!;
    expect(o1.status).not.toBe("succeeded");
    expect(o1.result?.error ?? o1.parkReason).toMatch(/mcp server "mine"/);
    // Removing the user's server leaves the declared one's connection.
    expect((await as(u, "DELETE", "/mcp-servers/mine")).status).toBe(200);
    expect((await as<{ connections: Array<{ server: string }> }>(u, "GET", "/account/mcp-connections")).body.connections.map((c) => c.server)).toEqual(["oauthpre"]);
    await as(u, "POST", `/threads/${id}/stop`, {});
  });
});
