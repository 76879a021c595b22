/**
 * weft ends a remote Streamable HTTP session it is done with: MCP's session termination, an HTTP
 * `DELETE` naming the session (`Mcp-Session-Id`). Sent beside what comes next and never waited
 * for (but by a thread's removal, at most SESSION_END_MS): a server that leaves it unanswered, answers 405 (it keeps no sessions to end) or fails it
 * holds up no call. A session the server said it forgot (404) is not ended again.
 *
 * The server here is a fake of the Streamable HTTP transport that records each DELETE.
 */
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RemoteConnection, SESSION_END_MS } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";
import { keepWithin } from "../../src/remote/kept-listings.js";
import { RemoteServers } from "../../src/remote/servers.js";

let http: HttpServer;
let url: string;
/** Each DELETE: the session it named and the credential it carried. */
const deletes: { session: string | undefined; authorization: string | undefined }[] = [];
/** How the server answers a DELETE: a status, or "never". */
let onDelete: number | "never" = 200;
/** Sessions the server has forgotten (a restart): a request naming one is answered 404. */
const forgotten = new Set<string>();
/** Sessions opened so far. */
let opened = 0;
/** A tools/call is answered when this resolves (null: at once). */
let holdCall: Promise<void> | null = null;
const held: ServerResponse[] = [];
/** How many held DELETEs the client has let go of (their connection closed). */
let cutDeletes = 0;

function answer(res: ServerResponse, id: unknown, result: unknown, session?: string): void {
  res.writeHead(200, { "content-type": "application/json", ...(session ? { "mcp-session-id": session } : {}) });
  res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
}

async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const session = req.headers["mcp-session-id"] as string | undefined;
  if (req.method === "DELETE") {
    deletes.push({ session, authorization: req.headers.authorization });
    if (onDelete === "never") {
      res.on("close", () => void cutDeletes++);
      return void held.push(res);
    }
    return void res.writeHead(onDelete).end();
  }
  if (req.method !== "POST") return void res.writeHead(405).end();
  let text = "";
  for await (const chunk of req) text += chunk;
  const message = JSON.parse(text) as { id?: number; method: string };
  if (message.method === "initialize") {
    const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "ends", version: "1" } };
    return answer(res, message.id, result, `sess-${++opened}`);
  }
  if (session !== undefined && forgotten.has(session)) return void res.writeHead(404).end();
  if (message.id === undefined) return void res.writeHead(202).end();
  if (message.method === "tools/list") return answer(res, message.id, { tools: [{ name: "lookup", inputSchema: { type: "object" } }] });
  if (holdCall) await holdCall;
  return answer(res, message.id, { content: [{ type: "text", text: "found" }] });
}

beforeAll(async () => {
  http = createServer((req, res) => void serve(req, res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  for (const res of held) res.destroy();
  http.closeAllConnections();
  return new Promise((r) => http.close(r));
});
beforeEach(() => {
  forgotten.clear();
  onDelete = 200;
  holdCall = null;
});

const connectionTo = () => new RemoteConnection("ends", defineMcpServer({ url }), async () => ({ headers: { Authorization: "Bearer tok-1" } }));

/** The DELETEs of `session` once one arrived (waiting at most 2 s; a test's DELETE may come after it ends, so each looks for its own sessions). */
async function deletesOf(session: string, wait = 2_000): Promise<typeof deletes> {
  const of = () => deletes.filter((d) => d.session === session);
  for (const until = Date.now() + wait; of().length === 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
  return of();
}

const latest = () => `sess-${opened}`;

const call = (connection: RemoteConnection) => connection.callTool("lookup", {}, new AbortController().signal);

describe("a remote Streamable HTTP session weft is done with", () => {
  it("is ended at its server: close() sends a DELETE naming the session, with the session's credential", async () => {
    const connection = connectionTo();
    await connection.listTools();
    const session = latest();
    await connection.close();
    expect(await deletesOf(session)).toEqual([{ session, authorization: "Bearer tok-1" }]);
  });

  it("a DELETE the server never answers holds up neither the close nor the next call, and is cut at its deadline", async () => {
    onDelete = "never";
    const connection = connectionTo();
    await connection.listTools();
    const session = latest();
    const started = Date.now();
    await connection.close();
    expect(await call(connection)).toMatchObject({ content: [{ text: "found" }] });
    expect(Date.now() - started).toBeLessThan(SESSION_END_MS / 2);
    expect(latest()).not.toBe(session);
    expect(await deletesOf(session)).toHaveLength(1);
    // Cut at its deadline: the client let go of the request.
    for (const until = Date.now() + SESSION_END_MS + 2_000; cutDeletes === 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    expect(cutDeletes).toBe(1);
    await connection.close();
  });

  it("a 405 (the server keeps no sessions to end) or a 500 to the DELETE fails nothing", async () => {
    for (const status of [405, 500]) {
      onDelete = status;
      const connection = connectionTo();
      await connection.listTools();
      const session = latest();
      await connection.close();
      expect(await deletesOf(session)).toHaveLength(1);
      // The connection opens a new session for its next call.
      expect(await call(connection)).toMatchObject({ content: [{ text: "found" }] });
      expect(latest()).not.toBe(session);
      await connection.close();
    }
  });

  it("a session the server said it forgot (404) is not ended: the call goes on in a new one", async () => {
    const connection = connectionTo();
    await connection.listTools();
    const first = latest();
    forgotten.add(first);
    expect(await call(connection)).toMatchObject({ content: [{ text: "found" }] });
    const second = latest();
    expect(second).not.toBe(first);
    await connection.close();
    expect(await deletesOf(second)).toHaveLength(1);
    expect(await deletesOf(first, 0)).toEqual([]);
  });

  it("a server's connection dropped from its set (a connection revoked) ends its session", async () => {
    const servers = new RemoteServers({ ends: defineMcpServer({ url }) }, () => false);
    await servers.refresh(["ends"]);
    const session = latest();
    await servers.reconnect("ends");
    expect(await deletesOf(session)).toHaveLength(1);
  });

  it("a set let go of while a call is under way ends the session once the call has its answer", async () => {
    let release!: () => void;
    holdCall = new Promise<void>((r) => (release = r));
    const servers = new RemoteServers({ ends: defineMcpServer({ url }) }, () => false);
    await servers.refresh(["ends"]);
    const session = latest();
    const tool = servers.definitionsFor("ends").ends__lookup!;
    const running = tool.execute!({} as never, {} as never, { signal: new AbortController().signal } as never);
    await new Promise((r) => setTimeout(r, 100));
    servers.retire();
    expect(await deletesOf(session, 200)).toEqual([]);
    release();
    expect(await running).toMatchObject({ status: "success", result: "found" });
    expect(await deletesOf(session)).toHaveLength(1);
  });

  it("a set ended for its thread's removal resolves once the DELETE is answered, and a later session is ended after its request", async () => {
    const servers = new RemoteServers({ ends: defineMcpServer({ url }) }, () => false);
    await servers.refresh(["ends"]);
    const session = latest();
    await servers.end();
    // Answered before end() resolved: nothing is left to wait for.
    expect(await deletesOf(session, 0)).toHaveLength(1);
    // A listing that comes after (one under way at the removal) opens a session that ends once it is done.
    servers.forget("ends");
    await servers.refresh(["ends"]);
    expect(latest()).not.toBe(session);
    expect(await deletesOf(latest())).toHaveLength(1);
  });

  it("a set ended while its server never answers the DELETE resolves at SESSION_END_MS, never failing", async () => {
    onDelete = "never";
    const servers = new RemoteServers({ ends: defineMcpServer({ url }) }, () => false);
    await servers.refresh(["ends"]);
    const session = latest();
    const started = Date.now();
    await servers.end();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(SESSION_END_MS - 50);
    expect(took).toBeLessThan(SESSION_END_MS + 1_000);
    expect(await deletesOf(session, 0)).toHaveLength(1);
  });

  it("the lists one isolate keeps for GET /v1/tools say which users they no longer keep, whose sessions then end", () => {
    const kept = new Map<string, number>();
    expect(keepWithin(kept, "a", 40, (n) => n, 100)).toEqual([]);
    expect(keepWithin(kept, "b", 40, (n) => n, 100)).toEqual([]);
    expect(keepWithin(kept, "c", 40, (n) => n, 100)).toEqual([40]);
    expect(keepWithin(kept, "huge", 500, (n) => n, 100)).toEqual([500]);
  });
});
