/**
 * Rows a target's Durable Objects read and write, counted as Durable Object storage bills them:
 * each SQL cursor's `rowsRead` and `rowsWritten` (workerd's own counters, read once the cursor is
 * done with), one row per key the KV API (async and `ctx.storage.kv`) reads or writes (it keeps its
 * keys in a SQLite table), and
 * one row written per `setAlarm` or `deleteAlarm`. Every object of a target runs in one isolate
 * under workerd, so one count per isolate covers them all (threads and, for weft, accounts); the
 * harness reads and resets it with `GET /__bench/rows`.
 * @module
 */

/** Rows since the last {@link takeRows}. */
let pending: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
let kvRead = 0;
let kvWritten = 0;
let statements = 0;
/** With `GET /__bench/rows?by=statement`: each cursor's query text, to say which statements the rows came from. */
let byStatement = false;
let queries: string[] = [];

const counted = new WeakSet<object>();

/**
 * Wraps `ctx.storage`'s SQL, KV and alarm methods so every row they touch is counted. Call it in
 * the Durable Object's constructor before anything reads storage (weft's own constructor included).
 */
export function countRows(ctx: DurableObjectState): void {
  const storage = ctx.storage;
  const sql = storage.sql;
  if (counted.has(sql)) return;
  counted.add(sql);
  const exec = sql.exec.bind(sql);
  sql.exec = ((query: string, ...bindings: unknown[]) => {
    const cursor = exec(query, ...bindings);
    pending.push(cursor);
    if (byStatement) queries.push(query);
    statements++;
    return cursor;
  }) as typeof sql.exec;
  const keys = (k: unknown) => (Array.isArray(k) ? k.length : 1);
  const wrap = <K extends "get" | "put" | "delete" | "list" | "setAlarm" | "deleteAlarm">(name: K, count: (args: unknown[], out: unknown) => [number, number]) => {
    const original = (storage[name] as (...a: unknown[]) => Promise<unknown>).bind(storage);
    (storage as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const out = await original(...args);
      const [r, w] = count(args, out);
      kvRead += r;
      kvWritten += w;
      return out;
    };
  };
  wrap("get", (a) => [keys(a[0]), 0]);
  wrap("put", (a) => [0, typeof a[0] === "string" ? 1 : Object.keys(a[0] as object).length]);
  wrap("delete", (a) => [0, keys(a[0])]);
  wrap("list", (_a, out) => [(out as Map<string, unknown>).size, 0]);
  wrap("setAlarm", () => [0, 1]);
  wrap("deleteAlarm", () => [0, 1]);
  // The synchronous KV API (ctx.storage.kv), one key at a time.
  const kv = (storage as unknown as { kv?: Record<string, (...a: unknown[]) => unknown> }).kv;
  if (kv) {
    for (const [name, read, written] of [["get", 1, 0], ["put", 0, 1], ["delete", 0, 1]] as const) {
      const original = kv[name]!.bind(kv);
      kv[name] = (...args: unknown[]) => {
        kvRead += read;
        kvWritten += written;
        return original(...args);
      };
    }
    const list = kv.list!.bind(kv);
    kv.list = (...args: unknown[]) => {
      const entries = [...(list(...args) as Iterable<unknown>)];
      kvRead += entries.length;
      return entries[Symbol.iterator]();
    };
  }
}

/** Per query text: how many times it ran, and the rows it read and wrote. */
type StatementRows = Record<string, { runs: number; rowsRead: number; rowsWritten: number }>;

/**
 * Rows read and written (and SQL statements run) since the last call, across the isolate; with
 * `perStatement` (counted since the last call that asked for it) also per query text.
 */
export function takeRows(perStatement = false): { rowsRead: number; rowsWritten: number; statements: number; byStatement?: StatementRows } {
  let rowsRead = kvRead;
  let rowsWritten = kvWritten;
  const detail: StatementRows = {};
  pending.forEach((c, i) => {
    rowsRead += c.rowsRead;
    rowsWritten += c.rowsWritten;
    const q = queries[i];
    if (byStatement && q !== undefined) {
      const d = (detail[q.replace(/\s+/g, " ").trim()] ??= { runs: 0, rowsRead: 0, rowsWritten: 0 });
      d.runs++;
      d.rowsRead += c.rowsRead;
      d.rowsWritten += c.rowsWritten;
    }
  });
  const out = { rowsRead, rowsWritten, statements, ...(byStatement ? { byStatement: detail } : {}) };
  pending = [];
  queries = [];
  kvRead = 0;
  kvWritten = 0;
  statements = 0;
  byStatement = perStatement;
  return out;
}

/**
 * The harness's route: `GET /__bench/rows` answers {@link takeRows}; `?by=statement` also turns
 * on the count per query text until the next read (it costs CPU, so figures are read without it).
 * Null for any other request.
 */
export function rowsRoute(request: Request): Response | null {
  if (request.url.endsWith("/__bench/rows")) return Response.json(takeRows());
  if (request.url.endsWith("/__bench/rows?by=statement")) return Response.json(takeRows(true));
  return null;
}
