/**
 * The bare target of bench/compare: a Worker and one SQLite Durable Object per session, written the
 * shortest way the platform allows. A tool call parses the body, appends one row and answers; a
 * turn appends its five rows; a burst appends one event row and sends it to every socket, one
 * event at a time. It is the floor weft is measured against.
 * @module
 */
import { DurableObject } from "cloudflare:workers";

interface Env {
  BARE: DurableObjectNamespace<BareThread>;
}

export class BareThread extends DurableObject<Env> {
  private seq = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, name TEXT, input TEXT, result TEXT)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, data TEXT)");
    this.seq = (ctx.storage.sql.exec("SELECT seq FROM events ORDER BY seq DESC LIMIT 1").toArray()[0]?.seq as number | undefined) ?? 0;
  }

  call(name: string, input: unknown) {
    const result = JSON.stringify(input);
    const id = this.ctx.storage.sql.exec("INSERT INTO calls (name, input, result) VALUES (?, ?, ?) RETURNING id", name, result, result).one().id;
    return { ok: true, toolName: name, callId: `call_${id}`, isError: false, result };
  }

  /** The round trip alone: no row written, so no commit for the response to wait for. */
  ping() {
    return { ok: true };
  }

  turn(content: string) {
    const sql = this.ctx.storage.sql;
    sql.exec("INSERT INTO calls (name, input, result) VALUES ('user', ?, NULL)", content);
    for (let i = 0; i < 3; i++) sql.exec("INSERT INTO calls (name, input, result) VALUES ('bench_read', ?, ?)", `{"n":${i}}`, `{"n":${i}}`);
    sql.exec("INSERT INTO calls (name, input, result) VALUES ('assistant', 'done', NULL)");
    return { ok: true };
  }

  burst(count: number, text: string) {
    for (let i = 0; i < count; i++) {
      const seq = ++this.seq;
      const frame = JSON.stringify({ seq, type: "burst", data: { i, text }, at: Date.now() });
      this.ctx.storage.sql.exec("INSERT INTO events (seq, data) VALUES (?, ?)", seq, frame);
      for (const ws of this.ctx.getWebSockets()) ws.send(frame);
    }
    return { count };
  }

  evict() {
    this.ctx.abort("bench eviction");
  }

  override async fetch(): Promise<Response> {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const parts = url.pathname.split("/").filter(Boolean);
    if (parts[0] === "v1" && parts[1] === "tools" && parts[2] && request.method === "POST") {
      const body = (await request.json()) as { input: unknown; sessionId: string };
      return Response.json(await env.BARE.get(env.BARE.idFromName(body.sessionId)).call(parts[2], body.input));
    }
    if (parts[0] === "threads" && parts[1]) {
      const stub = env.BARE.get(env.BARE.idFromName(parts[1]));
      if (parts[2] === "ws") return stub.fetch(request);
      if (parts[2] === "ping") return Response.json(await stub.ping());
      if (parts[2] === "turn") return Response.json(await stub.turn(((await request.json()) as { content: string }).content));
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
