/**
 * The Agents SDK target of bench/compare: Cloudflare's `agents` package used the way its docs
 * show (an `Agent` subclass, `routeAgentRequest` in the Worker, HTTP in `onRequest`, the
 * `this.sql` tag, `this.broadcast`). It does what the bare target does (the same API key check,
 * the same AI SDK loop for a turn, both fan-out modes), through the SDK.
 * @module
 */
import { Agent, type Connection, type ConnectionContext, routeAgentRequest } from "agents";
import type { ModelMessage } from "ai";
import { agentsWorker } from "./lib/auth.js";
import { frameJson } from "./lib/frame.js";
import { modelFor, runLoop } from "./lib/loop.js";
import { countRows, rowsRoute } from "./lib/rows.js";

interface Env {
  BenchAgent: DurableObjectNamespace<BenchAgent>;
  BENCH_API_KEY_SHA256: string;
}

export class BenchAgent extends Agent<Env> {
  private seq = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    countRows(ctx);
    super(ctx, env);
  }

  override async onStart(): Promise<void> {
    this.sql`CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, name TEXT, input TEXT, result TEXT)`;
    this.sql`CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, message TEXT)`;
    this.sql`CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, data TEXT)`;
    this.seq = this.sql<{ seq: number }>`SELECT seq FROM events ORDER BY seq DESC LIMIT 1`[0]?.seq ?? 0;
  }

  override onConnect(connection: Connection, ctx: ConnectionContext): void {
    const batch = new URL(ctx.request.url).searchParams.get("batch") === "1";
    connection.setState((prev: object | null) => ({ ...prev, batch }));
  }

  override async onRequest(request: Request): Promise<Response> {
    const parts = new URL(request.url).pathname.split("/").filter(Boolean);
    const action = parts[3];
    if (action === "tool" && parts[4]) {
      const body = (await request.json()) as { input: unknown };
      const result = JSON.stringify(body.input);
      const [row] = this.sql<{ id: number }>`INSERT INTO calls (name, input, result) VALUES (${parts[4]}, ${result}, ${result}) RETURNING id`;
      return Response.json({ ok: true, toolName: parts[4], callId: `call_${row?.id}`, isError: false, result });
    }
    if (action === "turn") {
      const { content, model, key } = (await request.json()) as { content: string; model: string; key: string };
      const history = this.sql<{ message: string }>`SELECT message FROM messages ORDER BY id`.map((r) => JSON.parse(r.message) as ModelMessage);
      const persist = (m: ModelMessage) => void this.sql`INSERT INTO messages (message) VALUES (${JSON.stringify(m)})`;
      const user: ModelMessage = { role: "user", content };
      persist(user);
      await runLoop(modelFor(model, key), [...history, user], persist);
      return Response.json({ ok: true });
    }
    if (action === "burst") {
      const { count, text } = (await request.json()) as { count: number; text: string };
      const connections = [...this.getConnections<{ batch: boolean }>()];
      const batched = connections.filter((c) => c.state?.batch);
      const skip = batched.map((c) => c.id);
      // As bare does: no per-event send when every socket asked for batches.
      const perEvent = batched.length < connections.length;
      const frames: string[] = [];
      for (let i = 0; i < count; i++) {
        const seq = ++this.seq;
        const frame = frameJson(seq, "burst", { i, text }, Date.now());
        this.sql`INSERT INTO events (seq, data) VALUES (${seq}, ${frame})`;
        if (perEvent) this.broadcast(frame, skip);
        if (batched.length) frames.push(frame);
      }
      if (batched.length) {
        const message = `[${frames.join(",")}]`;
        for (const c of batched) c.send(message);
      }
      return Response.json({ count });
    }
    if (action === "evict") {
      this.ctx.abort("bench eviction");
    }
    return new Response("not found", { status: 404 });
  }
}

export default agentsWorker(routeAgentRequest, rowsRoute);
