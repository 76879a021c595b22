/**
 * `POST /mcp-servers`: a server a user adds at run time, checked by the rules of a file under
 * `agents/mcp/` and a user's own (no loopback, no literal headers, no Worker secret named), kept
 * in their account, listed by `GET /v1/tools` for that user only; its bearer token comes from the
 * user's account env, never the Worker's.
 */
import { describe, expect, it } from "vitest";
import { type TestUser, json } from "../helpers.js";

type Listing = { remote?: { tools: Array<{ name: string; server: string; effect: string }>; problems: Array<{ server: string; code: string; reason: string }> } };

const add = (body: unknown, as: TestUser = "alice") => json("POST", "/mcp-servers", body, as);
const remoteOf = async (as: TestUser) => (await json<Listing>("GET", "/v1/tools", undefined, as)).body.remote!;

describe("MCP servers a user adds", () => {
  it("keeps the server for its user, whose GET /v1/tools lists its tools; no one else's does", async () => {
    const made = await add({ name: "mine", url: "https://tools.mcp.test/mcp", tools: ["lookup", "create_order"], effects: { create_order: "idempotent" } });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: "mine", definition: { kind: "mcp", url: "https://tools.mcp.test/mcp", tools: ["lookup", "create_order"] }, createdAt: expect.any(Number) });
    expect((await json("GET", "/mcp-servers", undefined, "alice")).body.servers.map((s: { name: string }) => s.name)).toContain("mine");

    const alices = (await remoteOf("alice")).tools.filter((t) => t.server === "mine");
    expect(alices.map((t) => [t.name, t.effect])).toEqual([
      ["mine__create_order", "idempotent"],
      ["mine__lookup", "read"],
    ]);
    // Bob neither sees nor lists alice's server.
    expect((await json("GET", "/mcp-servers", undefined, "bob")).body.servers.map((s: { name: string }) => s.name)).not.toContain("mine");
    expect((await remoteOf("bob")).tools.some((t) => t.server === "mine")).toBe(false);

    // Removed: listed no more.
    expect((await json("DELETE", "/mcp-servers/mine", undefined, "alice")).body).toEqual({ deleted: true });
    expect((await json("DELETE", "/mcp-servers/mine", undefined, "alice")).body).toEqual({ deleted: false });
    expect((await remoteOf("alice")).tools.some((t) => t.server === "mine")).toBe(false);
  });

  it("refuses a bad server with the field and the rule, the build's checks and a user's own", async () => {
    const cases: Array<[unknown, Array<string>]> = [
      [{ name: "Mine", url: "https://tools.mcp.test/mcp" }, ["name"]],
      [{ name: "remote", url: "https://tools.mcp.test/mcp" }, ["name"]], // a server in agents/mcp/
      [{ name: "needs_ok", url: "https://tools.mcp.test/mcp" }, ["name"]], // a local tool
      [{ name: "plain", url: "http://tools.example/mcp" }, ["url"]],
      [{ name: "creds", url: "https://u:p@tools.example/mcp" }, ["url"]],
      [{ name: "loop", url: "https://localhost:8787/mcp" }, ["url"]],
      [{ name: "loop6", url: "https://127.0.0.1/mcp" }, ["url"]],
      [{ name: "hdr", url: "https://tools.mcp.test/mcp", headers: { "X-Key": "abc" } }, ["headers"]],
      [{ name: "sec", url: "https://tools.mcp.test/mcp", auth: { type: "oauth", clientId: "c", clientSecretEnv: "TEST_MCP_CLIENT_SECRET", authorizationServer: "https://as.mcp.test" } }, ["auth", "clientSecretEnv"]],
      [{ name: "badauth", url: "https://tools.mcp.test/mcp", auth: { type: "basic" } }, ["auth"]],
      [{ name: "bearerx", url: "https://tools.mcp.test/mcp", auth: { type: "bearer", env: "X", extra: 1 } }, ["auth", "extra"]],
      [{ name: "eff", url: "https://tools.mcp.test/mcp", effects: { lookup: "reconcilable" } }, ["effects", "lookup"]],
      [{ name: "tls", url: "https://tools.mcp.test/mcp", tools: "lookup" }, ["tools"]],
      [{ name: "tmo", url: "https://tools.mcp.test/mcp", timeoutMs: -1 }, ["timeoutMs"]],
      // A call may hold its thread (billed as it waits) 10 minutes at most, not a day.
      [{ name: "tmolong", url: "https://tools.mcp.test/mcp", timeoutMs: 24 * 3600_000 }, ["timeoutMs"]],
      [{ name: "extra", url: "https://tools.mcp.test/mcp", kind: "mcp" }, ["kind"]],
    ];
    for (const [body, path] of cases) {
      const answer = await add(body);
      expect([JSON.stringify(body), answer.status, answer.body.error?.code, answer.body.error?.details?.path]).toEqual([JSON.stringify(body), 400, "invalid_request", path]);
      // The path once, then the rule: not "url: url must be".
      const message = String(answer.body.error?.message);
      expect(message.startsWith(`${path.join(".")}: `), message).toBe(true);
      expect(message.slice(path.join(".").length + 2).startsWith(`${path[0]}`), message).toBe(false);
    }
    // Nothing of them was kept.
    expect((await json("GET", "/mcp-servers", undefined, "alice")).body.servers).toEqual([]);
  });

  it("sends a bearer token from the user's account env only, never a Worker secret, and shows it nowhere", async () => {
    const seen = async () => (await (await fetch("http://elsewhere.mcp.test/__seen")).json()) as Array<Record<string, string>>;
    // TEST_MCP_CLIENT_SECRET is a Worker var of the test deployment (test/wrangler.toml).
    expect((await add({ name: "sneaky", url: "https://elsewhere.mcp.test/mcp", auth: { type: "bearer", env: "TEST_MCP_CLIENT_SECRET" } })).status).toBe(200);
    try {
      const before = (await seen()).length;
      const remote = await remoteOf("alice");
      expect(remote.problems.find((p) => p.server === "sneaky")).toMatchObject({ code: "mcp_auth_required", reason: expect.stringContaining("not set in your account env") });
      expect((await seen()).slice(before).some((h) => JSON.stringify(h).includes("pre-secret-123"))).toBe(false);

      // Her own value is sent, listed with, and redacted from the answer.
      const mine = "alice-own-token-7f2d41";
      await json("PUT", "/account/env/TEST_MCP_CLIENT_SECRET", { value: mine }, "alice");
      try {
        await json("DELETE", "/mcp-servers/sneaky", undefined, "alice");
        expect((await add({ name: "sneaky", url: "https://elsewhere.mcp.test/mcp", tools: ["whoami"], auth: { type: "bearer", env: "TEST_MCP_CLIENT_SECRET" } })).status).toBe(200);
        const listed = await remoteOf("alice");
        expect(listed.tools.filter((t) => t.server === "sneaky").map((t) => t.name)).toEqual(["sneaky__whoami"]);
        expect((await seen()).slice(before).some((h) => h.authorization === `Bearer ${mine}`)).toBe(true);
        expect((await seen()).some((h) => JSON.stringify(h).includes("pre-secret-123"))).toBe(false);
        expect(JSON.stringify(listed)).not.toContain(mine);
      } finally {
        await json("DELETE", "/account/env/TEST_MCP_CLIENT_SECRET", undefined, "alice");
      }
    } finally {
      await json("DELETE", "/mcp-servers/sneaky", undefined, "alice");
    }
  });

  it("holds at most 16 servers per user; replacing one is not adding", async () => {
    const names = Array.from({ length: 16 }, (_, i) => `s${i}`);
    try {
      for (const name of names) expect((await add({ name, url: "https://down.mcp.test/mcp" }, "bob")).status).toBe(200);
      const over = await add({ name: "s16", url: "https://down.mcp.test/mcp" }, "bob");
      expect([over.status, over.body.error.details]).toEqual([400, { path: ["name"], limit: 16 }]);
      expect((await add({ name: "s0", url: "https://tools.mcp.test/mcp" }, "bob")).status).toBe(200);
    } finally {
      for (const name of names) await json("DELETE", `/mcp-servers/${name}`, undefined, "bob");
    }
  });
});
