/**
 * The Agents SDK target of bench/compare: Cloudflare's `agents` package used the way its docs
 * show (an `Agent` subclass, `routeAgentRequest` in the Worker, HTTP in `onRequest`, the
 * `this.sql` tag, `this.broadcast`). It does what the bare target does, through the SDK.
 * @module
 */
import { Agent, routeAgentRequest } from "agents";

interface Env {
  BenchAgent: DurableObjectNamespace<BenchAgent>;
}

export class BenchAgent extends Agent<Env> {
  private seq = 0;

  override async onStart(): Promise<void> {
    this.sql`CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, name TEXT, input TEXT, result TEXT)`;
    this.sql`CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, data TEXT)`;
    this.seq = this.sql<{ seq: number }>`SELECT seq FROM events ORDER BY seq DESC LIMIT 1`[0]?.seq ?? 0;
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
      const { content } = (await request.json()) as { content: string };
      this.sql`INSERT INTO calls (name, input, result) VALUES ('user', ${content}, NULL)`;
      for (let i = 0; i < 3; i++) this.sql`INSERT INTO calls (name, input, result) VALUES ('bench_read', ${`{"n":${i}}`}, ${`{"n":${i}}`})`;
      this.sql`INSERT INTO calls (name, input, result) VALUES ('assistant', 'done', NULL)`;
      return Response.json({ ok: true });
    }
    if (action === "burst") {
      const { count, text } = (await request.json()) as { count: number; text: string };
      for (let i = 0; i < count; i++) {
        const seq = ++this.seq;
        const frame = JSON.stringify({ seq, type: "burst", data: { i, text }, at: Date.now() });
        this.sql`INSERT INTO events (seq, data) VALUES (${seq}, ${frame})`;
        this.broadcast(frame);
      }
      return Response.json({ count });
    }
    if (action === "evict") {
      this.ctx.abort("bench eviction");
    }
    return new Response("not found", { status: 404 });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    return (await routeAgentRequest(request, env)) ?? new Response("not found", { status: 404 });
  },
};
