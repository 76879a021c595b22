/**
 * An account made when OAuth tokens were kept per URL (before connections were bound to the
 * definition that made them): started again, the account moves its token rows under a legacy
 * binding no definition uses (src/account/mcp-connections.ts `migrateMcpConnections`), so no server
 * gets a token another definition may have obtained; they stay listed and revocable by name, a new
 * authorization of that name replaces them, and authorizations under way from before are dropped.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { as, authorize, callsOf, threadOf, turn, until } from "../remote/user-flow.js";
import { stubOf } from "../helpers.js";

/** The two tables as the account made them before bindings (at commit b810200). */
const BEFORE = `
  CREATE TABLE account_mcp_tokens (url TEXT PRIMARY KEY, server TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER, updated_at INTEGER NOT NULL);
  CREATE TABLE account_mcp_pending (nonce TEXT PRIMARY KEY, thread_id TEXT NOT NULL, server TEXT NOT NULL, url TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER NOT NULL);
`;

const columns = (sql: SqlStorage, table: string) => sql.exec<{ name: string }>("SELECT name FROM pragma_table_info(?)", table).toArray().map((c) => c.name);

describe("an account made before connections were bound to their definition", () => {
  it("keeps its old tokens unused, listed and revocable, and connects each server anew", async () => {
    const u = `migr-${crypto.randomUUID().slice(0, 6)}`;
    expect((await as(u, "GET", "/account/mcp-connections")).status).toBe(200);
    const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
    const stub = ns.get(ns.idFromName(u));
    await runInDurableObject(stub, (_account, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE account_mcp_tokens; DROP TABLE account_mcp_pending;");
      sql.exec(BEFORE);
      sql.exec("INSERT INTO account_mcp_tokens VALUES ('https://oauth.mcp.test/mcp', 'oauthed', 'sealed-before', NULL, 1)");
      sql.exec("INSERT INTO account_mcp_tokens VALUES ('https://oauthpre.mcp.test/mcp', 'oauthpre', 'sealed-before', NULL, 2)");
      sql.exec("INSERT INTO account_mcp_pending VALUES ('n1', 'thread_old', 'oauthed', 'https://oauth.mcp.test/mcp', 'sealed-before', ?)", Date.now() + 600_000);
    });
    await evictDurableObject(stub);

    const listed = await as<{ connections: Array<{ server: string; url: string }> }>(u, "GET", "/account/mcp-connections");
    expect(listed.body.connections.map((c) => [c.server, c.url])).toEqual([
      ["oauthed", "https://oauth.mcp.test/mcp"],
      ["oauthpre", "https://oauthpre.mcp.test/mcp"],
    ]);
    await runInDurableObject(stub, (_account, state) => {
      const sql = state.storage.sql;
      expect(columns(sql, "account_mcp_tokens")).toContain("binding");
      expect(columns(sql, "account_mcp_pending")).toContain("binding");
      expect(sql.exec("SELECT count(*) AS n FROM account_mcp_pending").one().n).toBe(0);
    });

    // The old row is not used: the server asks for a new authorization, which replaces it.
    const id = await threadOf(u, "remote_oauth");
    const calls = await turn(u, id, [{ toolCalls: [{ id: "c", name: "oauthed__connect", arguments: {} }] }, { text: "waiting" }]);
    expect(calls.find((c) => c.callId === "c")!.status).toBe("parked");
    await authorize(calls.find((c) => c.callId === "c")!.parkReason, u);
    await until(async () => (await callsOf(u, id)).find((c) => c.callId === "c")!.status === "succeeded", "connect");
    await stubOf(id).waitIdle();
    await runInDurableObject(stub, (_account, state) => {
      const rows = state.storage.sql.exec<{ server: string; binding: string }>("SELECT server, binding FROM account_mcp_tokens ORDER BY server").toArray();
      expect(rows.map((r) => [r.server, r.binding.startsWith("legacy:")])).toEqual([
        ["oauthed", false],
        ["oauthpre", true],
      ]);
    });
    // Revoked by name, the legacy row goes too.
    expect((await as(u, "DELETE", "/account/mcp-connections/oauthpre")).body).toEqual({ deleted: true });
    expect((await as<{ connections: Array<{ server: string }> }>(u, "GET", "/account/mcp-connections")).body.connections.map((c) => c.server)).toEqual(["oauthed"]);
    await as(u, "POST", `/threads/${id}/stop`, {});
  });
});
