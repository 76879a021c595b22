/**
 * The bare target of bench/compare: a Worker and one SQLite Durable Object per session, written the
 * shortest way the platform allows, doing what a deployed agent backend must: the Worker checks
 * the caller's API key (lib/auth.ts, the work weft does for one); a tool call parses the body,
 * appends one row and answers; a turn runs the AI SDK's agent loop (lib/loop.ts) over the
 * thread's history, kept one row per message; a burst appends one event row per event and sends
 * it to every socket, one message per event, or one message per burst (a JSON array of the
 * burst's frames) to a socket that asked for batches (`?batch=1`). It is the floor weft is
 * measured against.
 *
 * With `BENCH_JOURNAL=1` (the `bare-journaled` target of bench/compare's journal-floor.mjs and
 * run.mjs) a tool call keeps weft's promises for a call record and its events the shortest way
 * instead: a `bench_read` stores its row (a unique call id) with its result and the call's started
 * and finished events (one row for both), in two statements; a `bench_write` stores its row (also
 * in an index of unfinished calls) before the tool's work, then the result, then the two events.
 * That is the floor of a journaled call.
 * @module
 */
import type { ModelMessage } from "ai";
import { DurableObject } from "cloudflare:workers";
import { authorized, unauthorized } from "./lib/auth.js";
import { frameJson } from "./lib/frame.js";
import { modelFor, runLoop } from "./lib/loop.js";
import { countRows, rowsRoute } from "./lib/rows.js";

interface Env {
  BARE: DurableObjectNamespace<BareThread>;
  BENCH_API_KEY_SHA256: string;
  /** "1": tool calls are journaled (see the module's comment). */
  BENCH_JOURNAL?: string;
}

export class BareThread extends DurableObject<Env> {
  private seq = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    countRows(ctx);
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, name TEXT, input TEXT, result TEXT)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, message TEXT)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, data TEXT)");
    this.seq = (ctx.storage.sql.exec("SELECT seq FROM events ORDER BY seq DESC LIMIT 1").toArray()[0]?.seq as number | undefined) ?? 0;
    // Only the journaled variant makes its tables: the plain target's wake stays as it was.
    if (env.BENCH_JOURNAL === "1") {
      ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS journal (ord INTEGER PRIMARY KEY, call_id TEXT UNIQUE, name TEXT, input TEXT, status TEXT, result TEXT, finished_at INTEGER)");
      ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS journal_unfinished ON journal (status) WHERE finished_at IS NULL");
    }
  }

  /** The answer as JSON text, made once here (as weft's thread answers a direct call), not an object cloned back and serialized again. */
  call(name: string, input: unknown): string {
    if (this.env.BENCH_JOURNAL === "1") return name === "bench_write" ? this.journaledWrite(name, input) : this.journaledRead(name, input);
    const result = JSON.stringify(input);
    const id = this.ctx.storage.sql.exec("INSERT INTO calls (name, input, result) VALUES (?, ?, ?) RETURNING id", name, result, result).one().id;
    return JSON.stringify({ ok: true, toolName: name, callId: `call_${id}`, isError: false, result });
  }

  /** A read as weft promises it, in two statements: the call's row with its result, its two events. */
  private journaledRead(name: string, input: unknown): string {
    const callId = `call_${crypto.randomUUID()}`;
    const result = JSON.stringify(input);
    this.ctx.storage.sql.exec("INSERT INTO journal (call_id, name, input, status, result, finished_at) VALUES (?, ?, ?, 'succeeded', ?, ?)", callId, name, result, result, Date.now());
    return this.callEvents(callId, name, input, result);
  }

  /** A write as weft promises it, in three statements: the journal row, the tool's work (here the answer), the result, the two events. */
  private journaledWrite(name: string, input: unknown): string {
    const sql = this.ctx.storage.sql;
    const callId = `call_${crypto.randomUUID()}`;
    // The input's JSON, made once: the bench tools answer with their input.
    const result = JSON.stringify(input);
    const ord = sql.exec("INSERT INTO journal (call_id, name, input, status) VALUES (?, ?, ?, 'started') RETURNING ord", callId, name, result).one().ord;
    sql.exec("UPDATE journal SET status = 'succeeded', result = ?, finished_at = ? WHERE ord = ?", result, Date.now(), ord);
    return this.callEvents(callId, name, input, result);
  }

  /** Stores a call's started and finished events in one row (keyed by the newest seq, as weft packs them); answers the call. */
  private callEvents(callId: string, name: string, input: unknown, result: string): string {
    const now = Date.now();
    const started = ++this.seq;
    const finished = ++this.seq;
    const frames = `[${frameJson(started, "tool_call_started", { callId, toolName: name, input }, now)},${frameJson(finished, "tool_call_finished", { callId, toolName: name, result }, now)}]`;
    this.ctx.storage.sql.exec("INSERT INTO events (seq, data) VALUES (?, ?)", finished, frames);
    return JSON.stringify({ ok: true, toolName: name, callId, isError: false, result });
  }

  /** The round trip alone: no row written, so no commit for the response to wait for. */
  ping() {
    return { ok: true };
  }

  /** One turn: the history read, the user's message and each step's messages appended as rows. */
  async turn(content: string, model: string, key: string) {
    const sql = this.ctx.storage.sql;
    const history = sql.exec<{ message: string }>("SELECT message FROM messages ORDER BY id").toArray().map((r) => JSON.parse(r.message) as ModelMessage);
    const persist = (m: ModelMessage) => void sql.exec("INSERT INTO messages (message) VALUES (?)", JSON.stringify(m));
    const user: ModelMessage = { role: "user", content };
    persist(user);
    await runLoop(modelFor(model, key), [...history, user], persist);
    return { ok: true };
  }

  burst(count: number, text: string) {
    const sockets = this.ctx.getWebSockets();
    const batched = sockets.filter((ws) => ws.deserializeAttachment() === "batch");
    const single = sockets.filter((ws) => ws.deserializeAttachment() !== "batch");
    const frames: string[] = [];
    for (let i = 0; i < count; i++) {
      const seq = ++this.seq;
      const frame = frameJson(seq, "burst", { i, text }, Date.now());
      this.ctx.storage.sql.exec("INSERT INTO events (seq, data) VALUES (?, ?)", seq, frame);
      for (const ws of single) ws.send(frame);
      if (batched.length) frames.push(frame);
    }
    if (batched.length) {
      const message = `[${frames.join(",")}]`;
      for (const ws of batched) ws.send(message);
    }
    return { count };
  }

  evict() {
    this.ctx.abort("bench eviction");
  }

  override async fetch(request: Request): Promise<Response> {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    pair[1].serializeAttachment(new URL(request.url).searchParams.get("batch") === "1" ? "batch" : "single");
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
}

const JSON_HEADERS = { headers: { "content-type": "application/json" } };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const rows = rowsRoute(request);
    if (rows) return rows;
    if (!(await authorized(request, env.BENCH_API_KEY_SHA256))) return unauthorized();
    const url = new URL(request.url);
    const parts = url.pathname.split("/").filter(Boolean);
    if (parts[0] === "v1" && parts[1] === "tools" && parts[2] && request.method === "POST") {
      const body = (await request.json()) as { input: unknown; sessionId: string };
      return new Response(await env.BARE.get(env.BARE.idFromName(body.sessionId)).call(parts[2], body.input), JSON_HEADERS);
    }
    if (parts[0] === "threads" && parts[1]) {
      const stub = env.BARE.get(env.BARE.idFromName(parts[1]));
      if (parts[2] === "ws") return stub.fetch(request);
      if (parts[2] === "ping") return Response.json(await stub.ping());
      if (parts[2] === "turn") {
        const body = (await request.json()) as { content: string; model: string; key: string };
        return Response.json(await stub.turn(body.content, body.model, body.key));
      }
      if (parts[2] === "burst") {
        const body = (await request.json()) as { count: number; text: string };
        return Response.json(await stub.burst(body.count, body.text));
      }
      if (parts[2] === "evict") {
        await stub.evict().catch(() => {});
        return Response.json({ evicted: true });
      }
    }
    return new Response("not found", { status: 404 });
  },
};
