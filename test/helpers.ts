/**
 * Helpers for tests that run inside workerd: HTTP against the test worker, thread stubs, and a
 * WebSocket subscriber that collects frames.
 * @module
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import type { EventFrame } from "../src/protocol.js";
import type { ThreadApi } from "../src/thread/api.js";
import { WeftClient } from "../src/client/index.js";
import { type EventRow, framesOfRow } from "../src/event-rows.js";
import { API_KEYS } from "./keys.js";

const BASE = "http://weft.test";

export { API_KEYS };

/** A test user. */
export type TestUser = keyof typeof API_KEYS;

/**
 * Sends a request to the test worker as `as` (default "tester", by API key; null: no credentials);
 * a request that sets its own Authorization header keeps it. A string body is sent with its
 * Content-Length, as HTTP clients send it.
 */
export function request(path: string, init?: RequestInit, as: TestUser | null = "tester"): Promise<Response> {
  const req = new Request(`${BASE}${path}`, init);
  // As an HTTP client sends a body it holds whole (a Request made in JavaScript has no Content-Length).
  if (typeof init?.body === "string" && !req.headers.has("content-length")) req.headers.set("content-length", String(new TextEncoder().encode(init.body).byteLength));
  if (as !== null && !req.headers.has("authorization")) req.headers.set("authorization", `Bearer ${API_KEYS[as]}`);
  // `exports` is typed from generated wrangler types, which this project does not generate.
  return (exports as unknown as { default: Fetcher }).default.fetch(req);
}

/** weft/client over the test worker, with `token` (default the test user's API key). */
export function testClient(token: string = API_KEYS.tester): WeftClient {
  return new WeftClient({ url: BASE, token, fetch: ((input: RequestInfo | URL, init?: RequestInit) => (exports as unknown as { default: Fetcher }).default.fetch(new Request(input, init))) as typeof fetch });
}

/** Sends JSON (when there is a body) and parses the JSON answer. */
export async function json<T = any>(method: string, path: string, body?: unknown, as: TestUser = "tester"): Promise<{ status: number; body: T }> {
  const res = await request(
    path,
    {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) }),
    },
    as,
  );
  return { status: res.status, body: (await res.json()) as T };
}

/** Sends JSON with an `Idempotency-Key` and parses the answer. */
export async function keyed<T = any>(method: string, path: string, key: string, body: unknown, as: TestUser = "tester"): Promise<{ status: number; body: T }> {
  const res = await request(path, { method, headers: { "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify(body) }, as);
  return { status: res.status, body: (await res.json()) as T };
}

/** Creates a thread and returns its id. */
export async function createThread(body: Record<string, unknown> = {}): Promise<string> {
  const res = await json<{ threadId: string }>("POST", "/threads", body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.threadId;
}

/** The Durable Object stub of a thread, typed with its RPC methods. */
export function stubOf(threadId: string): ThreadApi {
  return rawStub(threadId) as unknown as ThreadApi;
}

/** The untyped stub, for `runInDurableObject` and `evictDurableObject`. */
export function rawStub(threadId: string): DurableObjectStub {
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  return ns.get(ns.idFromString(threadId));
}

/** Posts a user message with a script and waits until the thread is idle. */
export async function runTurn(threadId: string, content: string, script: unknown[]): Promise<void> {
  const res = await json("POST", `/threads/${threadId}/messages`, { content, script });
  if (res.status !== 202) throw new Error(`post failed: ${res.status} ${JSON.stringify(res.body)}`);
  await stubOf(threadId).waitIdle();
}

/** Every event of a thread so far, read through a real WebSocket replay. */
export async function eventsOf(threadId: string, since = 0): Promise<EventFrame[]> {
  const sub = await subscribe(threadId, since);
  const info = await json<{ lastSeq: number }>("GET", `/threads/${threadId}`);
  await sub.until((frames) => (frames.at(-1)?.seq ?? since) >= info.body.lastSeq);
  sub.close();
  return sub.frames;
}

/** A WebSocket subscription that collects frames in arrival order. */
export interface Subscription {
  frames: EventFrame[];
  /** WebSocket messages received (with `batch`, one may carry many frames). */
  messages: number;
  /** How many of those messages were JSON arrays of frames. */
  arrays: number;
  until(done: (frames: EventFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `GET /threads/:id/ws?since=` (with `batch`, `&batch=1`: messages are arrays of frames) and collects frames. */
export async function subscribe(threadId: string, since?: number, batch = false): Promise<Subscription> {
  const query = [since === undefined ? "" : `since=${since}`, batch ? "batch=1" : ""].filter(Boolean).join("&");
  const res = await request(`/threads/${threadId}/ws${query ? `?${query}` : ""}`, {
    headers: { Upgrade: "websocket" },
  });
  const ws = res.webSocket;
  if (!ws) throw new Error(`no websocket: ${res.status} ${await res.text()}`);
  ws.accept();
  const frames: EventFrame[] = [];
  const waiters = new Set<() => void>();
  const sub = { messages: 0, arrays: 0 };
  ws.addEventListener("message", (e) => {
    const message = JSON.parse(e.data as string) as EventFrame | EventFrame[];
    sub.messages++;
    if (Array.isArray(message)) sub.arrays++;
    frames.push(...(Array.isArray(message) ? message : [message]));
    for (const w of waiters) w();
  });
  return {
    frames,
    get messages() {
      return sub.messages;
    },
    get arrays() {
      return sub.arrays;
    },
    until(done, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (done(frames)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; got ${frames.length} frames: ${frames.map((f) => f.type).join(",")}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      ws.close(1000, "done");
    },
  };
}

/**
 * A thread of the `browser` fixture agent (created with `extra` options too) whose turn called the
 * client tool `pick_file` (call `pick`) and waits for the client's answer.
 */
export async function waitingForClient(extra: Record<string, unknown> = {}): Promise<string> {
  const id = await createThread({ agent: "browser", ...extra });
  await json("POST", `/threads/${id}/messages`, {
    content: "attach my report",
    script: [{ toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "Pick the report" } }] }, { text: "got it" }],
  });
  await stubOf(id).waitIdle();
  return id;
}

/** `POST /threads/:id/calls/:callId/result`: a client's answer (`{ result }` or `{ error }`) to a client tool's call. */
export const answerClientCall = (id: string, body: unknown, callId = "pick") => json("POST", `/threads/${id}/calls/${callId}/result`, body);

/** Every event a thread's `events` rows hold, oldest first, read straight from its SQLite (a packed row gives each of its events). */
export function eventsStoredIn(sql: SqlStorage): EventFrame[] {
  return sql.exec<EventRow & Record<string, SqlStorageValue>>("SELECT seq, type, data, at FROM events ORDER BY seq").toArray().flatMap((r) => framesOfRow(r));
}

/**
 * Rows SQLite read for every statement `fn` ran on `sql` (workerd's `rowsRead`), however each was
 * read (`toArray`, or row by row), counted once `fn` is done.
 */
export function rowsReadBy(sql: SqlStorage, fn: () => unknown): number {
  const exec = sql.exec.bind(sql);
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  sql.exec = ((q: string, ...b: unknown[]) => {
    const c = exec(q, ...b);
    cursors.push(c);
    return c;
  }) as typeof sql.exec;
  try {
    fn();
  } finally {
    sql.exec = exec;
  }
  return cursors.reduce((n, c) => n + c.rowsRead, 0);
}

/**
 * Runs `fn` inside the thread's Durable Object with the instance untyped (its private fields are
 * what tests inspect). Wrapping `runInDurableObject` also spares tsc its deep RPC type inference.
 */
export function inThread<T>(threadId: string, fn: (instance: any) => T | Promise<T>): Promise<T> {
  const run = runInDurableObject as unknown as (stub: DurableObjectStub, cb: (instance: any) => T | Promise<T>) => Promise<T>;
  return run(rawStub(threadId), fn);
}

/** A call as `GET /threads/:id/calls` lists it. */
export type ListedCall = {
  callId: string;
  toolName: string;
  source: string;
  status: string;
  attempts: number;
  effectKey: string;
  input?: unknown;
  stubbed?: boolean;
  approvedBy?: string;
  decidedBy?: string;
  parkReason?: string;
  argsHash?: string;
  fullResultPath?: string;
  outcome?: string;
  restarts?: number;
  durationMs?: number;
  result?: { status: string; result?: string; error?: string; attachments?: unknown[] };
  errorCode?: string;
  errorDetails?: Record<string, unknown>;
};

/** Every call of a thread, in creation order. */
export async function callsOf(threadId: string): Promise<ListedCall[]> {
  const answer = await json<{ calls: ListedCall[] }>("GET", `/threads/${threadId}/calls`);
  if (answer.status !== 200) throw new Error(`GET /threads/${threadId}/calls answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.calls;
}

/** The messages of a thread, oldest first, silent included. */
export async function messagesOf(threadId: string): Promise<Array<{ role: string; content: string; toolCallId?: string; name?: string }>> {
  return (await json("GET", `/threads/${threadId}/messages?limit=1000&includeSilent=true`)).body.messages;
}

/** How often the outside ledger saw an effect key execute (raw count, no deduplication). */
export async function ledgerOf(effectKey: string): Promise<{ runs: number }> {
  return ledgerStub().read(effectKey);
}

/** How often the outside ledger saw call `callId` of thread `threadId` execute, whatever branch its key had. */
export async function effectRuns(threadId: string, callId: string): Promise<{ runs: number }> {
  return ledgerStub().runsOf(threadId, callId);
}

function ledgerStub(): { read(key: string): Promise<{ runs: number }>; runsOf(threadId: string, callId: string): Promise<{ runs: number }> } {
  const ns = (env as unknown as { LEDGER: DurableObjectNamespace }).LEDGER;
  return ns.get(ns.idFromName("ledger")) as never;
}

/** Waits until `check` answers true, looking every 10 ms, for `ms` (60 s) at most. @throws Error naming `what` when it never does. */
export async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  // A bound for a condition that never comes, generous for a loaded machine (400 polls, a few
  // seconds, were outlasted beside a second npm test).
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) {
    if (await check()) return;
  }
  if (await check()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Starts recording the SQL statements `threadId`'s object runs (by wrapping `storage.sql.exec`):
 * `record` maps each to what the test keeps (undefined: not kept); `take` answers what was kept
 * since the last `take` and clears it.
 */
export async function recordStatements<T>(threadId: string, record: (query: string, bindings: unknown[]) => T | undefined): Promise<{ take: () => Promise<T[]> }> {
  const key = `__statements:${threadId}`;
  await runInDurableObject(rawStub(threadId), (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { exec: SqlStorage["exec"] };
    const kept: T[] = [];
    const exec = sql.exec.bind(sql);
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const entry = record(query, bindings);
      if (entry !== undefined) kept.push(entry);
      return exec(query, ...bindings);
    }) as SqlStorage["exec"];
    (globalThis as Record<string, unknown>)[key] = () => kept.splice(0);
  });
  return { take: () => runInDurableObject(rawStub(threadId), () => ((globalThis as Record<string, unknown>)[key] as () => T[])()) };
}

/**
 * Starts counting the rows every query of the thread reads and writes (workerd's `cursor.rowsRead`
 * and `cursor.rowsWritten`); `read()` and `written()` are the totals since.
 */
export async function countRows(threadId: string): Promise<{ read: () => Promise<number>; written: () => Promise<number> }> {
  const key = `__rowsRead:${threadId}`;
  await runInDurableObject(rawStub(threadId), (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { exec: SqlStorage["exec"] };
    const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
    const exec = sql.exec.bind(sql);
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      cursors.push(cursor);
      return cursor;
    }) as SqlStorage["exec"];
    (globalThis as Record<string, unknown>)[key] = (field: "rowsRead" | "rowsWritten") => cursors.reduce((n, c) => n + c[field], 0);
  });
  const total = (field: "rowsRead" | "rowsWritten") =>
    runInDurableObject(rawStub(threadId), () => ((globalThis as Record<string, unknown>)[key] as (f: typeof field) => number)(field));
  return { read: () => total("rowsRead"), written: () => total("rowsWritten") };
}

/** Tables a turn or a call writes to; their rows are what piles up over a thread's life. */
const HISTORY_TABLES = ["turns", "calls", "messages", "events", "script"];
/** Integer keys that must stay unique (and ordered) in each copied row. */
const ORDERED = new Set(["id", "seq", "ord"]);
/** Text keys made unique per copy. */
const NAMED = new Set(["turn_id", "call_id"]);

/**
 * Gives the thread `copies` more of the history it has (turns, calls, messages, events, script
 * steps): every row of those tables is inserted again per copy, keys shifted, so the schema's
 * every column is kept. A thread's age in seconds instead of hours.
 */
export async function growHistory(threadId: string, copies: number): Promise<void> {
  await runInDurableObject(rawStub(threadId), (instance, state) => {
    const sql = state.storage.sql;
    for (const table of HISTORY_TABLES) {
      const rows = sql.exec(`SELECT * FROM ${table}`).toArray();
      if (rows.length === 0) continue;
      const columns = Object.keys(rows[0]!);
      const top: Record<string, number> = {};
      for (const c of columns.filter((c) => ORDERED.has(c))) top[c] = sql.exec<{ m: number }>(`SELECT COALESCE(MAX(${c}), 0) AS m FROM ${table}`).one().m;
      const insert = `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
      state.storage.transactionSync(() => {
        for (let k = 1; k <= copies; k++) {
          for (const row of rows) {
            const values = columns.map((c) => {
              const v = row[c]!;
              if (ORDERED.has(c)) return (v as number) + k * top[c]!;
              if (NAMED.has(c)) return `${String(v)}_past${k}`;
              return v;
            });
            sql.exec(insert, ...values);
          }
        }
      });
    }
    // The rows changed behind the stores: what they keep in memory (the newest seq and ord) is stale.
    (instance as unknown as { store: { forget(): void } }).store.forget();
  });
}

/** Whether `GET /threads` (its newest 200) lists thread `id` for the tester. */
export async function isListed(id: string): Promise<boolean> {
  const page = await json<{ threads: Array<{ threadId: string }> }>("GET", "/threads?limit=200");
  return page.body.threads.some((t) => t.threadId === id);
}
