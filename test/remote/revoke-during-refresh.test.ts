/**
 * A connection revoked while its token is being refreshed stays revoked: the refreshed tokens are
 * neither kept nor used, and the call asks for a new authorization; a server removed meanwhile
 * gets no new authorization at all. Users: `hrdr-*`.
 */
import { describe, expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { as, authorize, callsOf, threadOf, turn, until } from "./user-flow.js";

const oauth = async () => (await fetch("https://as.mcp.test/__oauth")).json() as Promise<{ refreshes: number; refreshesHeld: number }>;

/** A user with the server `mine` connected in a thread, every token then refused: the next call refreshes. */
async function connected(): Promise<{ u: string; id: string }> {
  const u = `hrdr-${crypto.randomUUID().slice(0, 6)}`;
  expect((await as(u, "POST", "/mcp-servers", { name: "mine", url: "https://oauth.mcp.test/mcp", auth: { type: "oauth" } })).status).toBe(200);
  const id = await threadOf(u, "remote_oauth");
  const first = await turn(u, id, [{ toolCalls: [{ id: "c", name: "mine__connect", arguments: {} }] }, { text: "waiting" }]);
  await authorize(first.find((c) => c.callId === "c")!.parkReason, u);
  await until(async () => (await callsOf(u, id)).find((c) => c.callId === "c")!.status === "succeeded", "connected");
  await stubOf(id).waitIdle();
  await fetch("https://as.mcp.test/__oauth/expire", { method: "POST" });
  return { u, id };
}

/** Runs a call of `mine__whoami` whose refresh the server holds while `meanwhile` runs. */
async function duringRefresh(u: string, id: string, meanwhile: () => Promise<void>): Promise<void> {
  const held = (await oauth()).refreshesHeld;
  await fetch("https://as.mcp.test/__oauth/hold-refresh");
  let running: Promise<unknown> | undefined;
  try {
    expect((await as(u, "POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "w", name: "mine__whoami", arguments: {} }] }, { text: "done" }] })).status).toBe(202);
    running = stubOf(id).waitIdle();
    await until(async () => (await oauth()).refreshesHeld > held, "the refresh to reach the server");
    await meanwhile();
  } finally {
    await fetch("https://as.mcp.test/__oauth/release");
  }
  await running;
}

describe("revoking a connection during a refresh", () => {
  it("removing the server meanwhile starts no new authorization for it", async () => {
    const { u, id } = await connected();
    await duringRefresh(u, id, async () => {
      expect((await as(u, "DELETE", "/mcp-servers/mine")).status).toBe(200);
    });
    expect((await as<{ connections: unknown[] }>(u, "GET", "/account/mcp-connections")).body.connections).toEqual([]);
    const w = (await callsOf(u, id)).find((c) => c.callId === "w")!;
    expect(JSON.stringify(w)).not.toMatch(/open https:/);
    expect(JSON.stringify(w)).toContain("no longer one of your servers");
    await as(u, "POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });

  it("keeps it revoked: the refreshed token is dropped and the call parks for a new authorization", async () => {
    const { u, id } = await connected();
    await duringRefresh(u, id, async () => {
      expect((await as(u, "DELETE", "/account/mcp-connections/mine")).body).toEqual({ deleted: true });
    });
    expect((await as<{ connections: unknown[] }>(u, "GET", "/account/mcp-connections")).body.connections).toEqual([]);
    const w = (await callsOf(u, id)).find((c) => c.callId === "w")!;
    expect(w.status).toBe("parked");
    expect(w.parkReason).toMatch(/open https:\/\/as\.mcp\.test\/authorize/);
    await as(u, "POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });
});
