/**
 * A user's server replaced under its name (another definition) and then removed leaves no
 * connection behind: re-adding the first definition asks for a new authorization. Users: `hrep-*`.
 */
import { describe, expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { as, authorize, callsOf, threadOf, turn, until } from "./user-flow.js";

const connect = (id: string, server: string) => [{ toolCalls: [{ id, name: `${server}__connect`, arguments: {} }] }, { text: "waiting" }];

describe("replace then remove a user's server", () => {
  it("removing the server removes every connection made under it", async () => {
    const u = `hrep-${crypto.randomUUID().slice(0, 6)}`;
    expect((await as(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const id = await threadOf(u, "remote_oauth");
    const calls = await turn(u, id, connect("c", "mine"));
    const parked = calls.find((c) => c.callId === "c")!;
    expect(parked.status).toBe("parked");
    await authorize(parked.parkReason, u);
    await until(async () => (await callsOf(u, id)).find((c) => c.callId === "c")!.status === "succeeded", "connected");
    await stubOf(id).waitIdle();
    // Replace the same name with another definition (a scope added), then remove it.
    expect((await as(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth", scopes: ["x"] } })).status).toBe(200);
    expect((await as(u, "DELETE", "/mcp-servers/mine")).status).toBe(200);
    const listed = (await as<{ connections: Array<{ server: string; url: string }> }>(u, "GET", "/account/mcp-connections")).body.connections;
    expect(listed).toEqual([]);
    // Re-adding the first definition: no old token is used without a new authorization.
    expect((await as(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
    const again = await turn(u, id, [{ toolCalls: [{ id: "w", name: "mine__whoami", arguments: {} }] }, { text: "done" }]);
    expect(again.find((c) => c.callId === "w")!.status).not.toBe("succeeded");
    await as(u, "POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });
});
