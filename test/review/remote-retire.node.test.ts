/**
 * review (remote MCP session end): `retire()` must close a session only once no request uses it.
 * - A listing asks its pages one request each: a connection retired during page 1 closed (and
 *   ended at the server) the session as page 1 was answered, and asked page 2 with page 1's cursor
 *   on a new session. A server whose cursors belong to their session then fails the listing.
 * - GET /v1/tools: a user dropped from the isolate's kept lists while a listing of theirs ran (their
 *   servers retired) was kept again by that listing's end, retired: from then on each of their
 *   listings opened a session and ended it at once (DELETE), however often they listed.
 */
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WeftError } from "../../src/errors.js";
import { RemoteConnection } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";
import { KEPT_USERS } from "../../src/remote/kept-listings.js";
import { LIST_TTL_MS, RemoteServers } from "../../src/remote/servers.js";
import { listRemoteTools } from "../../src/remote/tool-listing.js";

let http: HttpServer;
let url: string;
const deletes: string[] = [];
/** The Authorization each DELETE carried, by session. */
const deleteAuth = new Map<string, string | undefined>();
let opened = 0;
/** tools/list (first page) is answered when this resolves (null: at once). */
let holdList: Promise<void> | null = null;
/** Whether tools/list answers in two pages, the cursor naming the session it was given on. */
let paged = false;
/** First pages asked so far. */
let firstPages = 0;

function answer(res: ServerResponse, id: unknown, body: { result?: unknown; error?: unknown }, session?: string): void {
  res.writeHead(200, { "content-type": "application/json", ...(session ? { "mcp-session-id": session } : {}) });
  res.end(JSON.stringify({ jsonrpc: "2.0", id, ...body }));
}

async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const session = req.headers["mcp-session-id"] as string | undefined;
  if (req.method === "DELETE") {
    deletes.push(session ?? "");
    deleteAuth.set(session ?? "", req.headers.authorization);
    return void res.writeHead(200).end();
  }
  if (req.method !== "POST") return void res.writeHead(405).end();
  let text = "";
  for await (const chunk of req) text += chunk;
  const message = JSON.parse(text) as { id?: number; method: string; params?: { cursor?: string } };
  if (message.method === "initialize") {
    const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "retire", version: "1" } };
    return answer(res, message.id, { result }, `rs-${++opened}`);
  }
  if (message.id === undefined) return void res.writeHead(202).end();
  if (message.method === "tools/list") {
    const cursor = message.params?.cursor;
    if (cursor === undefined) {
      firstPages++;
      if (holdList) await holdList;
      return answer(res, message.id, { result: { tools: [{ name: "one", inputSchema: { type: "object" } }], ...(paged ? { nextCursor: `page2@${session}` } : {}) } });
    }
    // A cursor is good in the session that gave it out only.
    if (cursor !== `page2@${session}`) return answer(res, message.id, { error: { code: -32602, message: `invalid cursor ${cursor}` } });
    return answer(res, message.id, { result: { tools: [{ name: "two", inputSchema: { type: "object" } }] } });
  }
  return answer(res, message.id, { result: { content: [{ type: "text", text: "ok" }] } });
}

beforeAll(async () => {
  http = createServer((req, res) => void serve(req, res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  http.closeAllConnections();
  return new Promise((r) => http.close(r));
});

const settle = (ms = 100) => new Promise((r) => setTimeout(r, ms));

describe("a retired remote connection", () => {
  it("keeps the session of a listing under way through all its pages, and ends it after the last", async () => {
    paged = true;
    let release!: () => void;
    holdList = new Promise<void>((r) => (release = r));
    try {
      const connection = new RemoteConnection("retire", defineMcpServer({ url }));
      const asked = firstPages;
      const listing = connection.listTools();
      while (firstPages === asked) await settle(10);
      const session = `rs-${opened}`;
      connection.retire();
      release();
      const tools = await listing;
      expect(tools.map((t) => t.name)).toEqual(["one", "two"]);
      expect(`rs-${opened}`).toBe(session);
      await settle();
      expect(deletes).toContain(session);
    } finally {
      paged = false;
      holdList = null;
    }
  });
});

describe("GET /v1/tools, a user dropped from the kept lists while listing", () => {
  it("is not kept again retired: the user's next listing keeps its session open", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const env = {};
      const servers = { retire: defineMcpServer({ url }) };
      const list = (userId: string) => listRemoteTools({ servers, taken: () => false, env, userId });
      let release!: () => void;
      holdList = new Promise<void>((r) => (release = r));
      const asked = firstPages;
      const victim = list("victim");
      while (firstPages === asked) await settle(10);
      holdList = null;
      // Enough other users list that the victim, listed longest ago, is dropped (its servers retired).
      for (let i = 0; i < KEPT_USERS; i++) await list(`other-${i}`);
      release();
      expect((await victim).tools.map((t) => t.name)).toEqual(["retire__one"]);
      await settle();
      // Its list has aged: the next listing asks the server again.
      vi.setSystemTime(Date.now() + LIST_TTL_MS + 1000);
      const before = deletes.length;
      expect((await list("victim")).tools.map((t) => t.name)).toEqual(["retire__one"]);
      const session = `rs-${opened}`;
      await settle(300);
      // Kept, its session serves the user's next requests: not ended.
      expect(deletes.slice(before)).not.toContain(session);
    } finally {
      holdList = null;
      vi.useRealTimers();
    }
  }, 60_000);
});

describe("an OAuth session whose connection the user revoked", () => {
  it("is ended when the revocation is seen, not with the revoked token at some later renewal", async () => {
    let token: string | null = "tok-old";
    const connection = new RemoteConnection("retire", defineMcpServer({ url, auth: { type: "oauth" } }), async () => {
      if (token === null) throw new WeftError("mcp_auth_required", "connect again at https://weft.test/authorize");
      return { headers: { Authorization: `Bearer ${token}` } };
    });
    await connection.listTools();
    const session = `rs-${opened}`;
    // Revoked at the account: the next request is refused before anything is sent.
    token = null;
    await expect(connection.listTools()).rejects.toMatchObject({ code: "mcp_auth_required" });
    await settle(200);
    const atRevocation = deletes.includes(session);
    // Connected again: the old session is dropped now if it was not before.
    token = "tok-new";
    await connection.listTools();
    await settle(200);
    expect({ atRevocation, auth: deleteAuth.get(session) }).toEqual({ atRevocation: true, auth: "Bearer tok-old" });
    await connection.close();
  });
});

describe("a set of servers let go of before it lists (a user dropped while the OAuth check of their listing ran)", () => {
  it("ends the sessions its listing opens after", async () => {
    const servers = new RemoteServers({ retire: defineMcpServer({ url }) }, () => false);
    servers.retire();
    await servers.refresh(["retire"]);
    const session = `rs-${opened}`;
    expect(servers.definitionsFor("retire").retire__one).toBeDefined();
    await settle(300);
    expect(deletes).toContain(session);
  });
});
