/**
 * Rows a target's Durable Objects read and write, counted as Durable Object storage bills them:
 * each SQL cursor's `rowsRead` and `rowsWritten` (workerd's own counters, read once the cursor is
 * done with), one row per key the KV API (async and `ctx.storage.kv`) reads or writes (it keeps its
 * keys in a SQLite table), and
 * one row written per `setAlarm` or `deleteAlarm`. Every object of a target runs in one isolate
 * under workerd, so one count per isolate covers them all (threads and, for weft, accounts); the
 * harness reads and resets it with `GET /__bench/rows`.
 *
 * A cursor is read once the code that made it has run to its end (a microtask later: weft and the
 * baselines read every cursor in the synchronous step that made it) and then let go, so the count
 * keeps no cursor alive: holding each one until the next read kept about 80 KiB per thread in the
 * isolate (workerd's native cursors) and made the garbage collector's work part of the figures.
 * @module
 */

/** Cursors made since the last fold, with their query text when counted per statement. */
let pending: Array<{ cursor: SqlStorageCursor<Record<string, SqlStorageValue>>; query?: string }> = [];
let folding = false;
let rowsRead = 0;
let rowsWritten = 0;
let statements = 0;
/** With `GET /__bench/rows?by=statement`: rows per query text, to say which statements the rows came from. */
let byStatement = false;
let detail: StatementRows = {};

/** Adds the rows of every pending cursor to the counts and lets the cursors go. */
function fold(): void {
  folding = false;
  for (const { cursor, query } of pending) {
    rowsRead += cursor.rowsRead;
    rowsWritten += cursor.rowsWritten;
    if (query === undefined) continue;
    const d = (detail[query.replace(/\s+/g, " ").trim()] ??= { runs: 0, rowsRead: 0, rowsWritten: 0 });
    d.runs++;
    d.rowsRead += cursor.rowsRead;
    d.rowsWritten += cursor.rowsWritten;
  }
  pending = [];
}

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
    pending.push(byStatement ? { cursor, query } : { cursor });
    statements++;
    if (!folding) {
      folding = true;
      queueMicrotask(fold);
    }
    return cursor;
  }) as typeof sql.exec;
  const keys = (k: unknown) => (Array.isArray(k) ? k.length : 1);
  const wrap = <K extends "get" | "put" | "delete" | "list" | "setAlarm" | "deleteAlarm">(name: K, count: (args: unknown[], out: unknown) => [number, number]) => {
    const original = (storage[name] as (...a: unknown[]) => Promise<unknown>).bind(storage);
    (storage as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const out = await original(...args);
      const [r, w] = count(args, out);
      rowsRead += r;
      rowsWritten += w;
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
        rowsRead += read;
        rowsWritten += written;
        return original(...args);
      };
    }
    const list = kv.list!.bind(kv);
    kv.list = (...args: unknown[]) => {
      const entries = [...(list(...args) as Iterable<unknown>)];
      rowsRead += entries.length;
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
  fold();
  const out = { rowsRead, rowsWritten, statements, ...(byStatement ? { byStatement: detail } : {}) };
  rowsRead = 0;
  rowsWritten = 0;
  statements = 0;
  detail = {};
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
