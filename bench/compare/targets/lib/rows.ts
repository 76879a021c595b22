/**
 * Rows a target's Durable Objects read and write, counted as Durable Object storage bills them:
 * each SQL cursor's `rowsRead` and `rowsWritten` (workerd's own counters, read once the cursor is
 * done with), one row per key the KV API (async and `ctx.storage.kv`) reads or writes (it keeps its
 * keys in a SQLite table), and one row written per `setAlarm` or `deleteAlarm`. Every object of a
 * target runs in one isolate under workerd, so one count per isolate covers them all (threads and,
 * for weft, accounts); the harness reads and resets it with `GET /__bench/rows`.
 *
 * A cursor is read once the code that made it has run to its end (a microtask later: weft and the
 * baselines read every cursor in the synchronous step that made it) and then let go, so the count
 * keeps no cursor alive: holding each one until the next read kept about 80 of workerd's native
 * cursors alive per weft thread (30-60 KiB of the isolate's memory per thread) and made the garbage
 * collector's work part of the figures.
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

/** Prototypes already wrapped: every object of the isolate shares them. */
const wrapped = new WeakSet<object>();
type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Replaces `proto[name]` once with `wrap(original)`, where the isolate's objects all find it. */
function patch(proto: object, name: string, wrap: (original: Method) => Method): void {
  const methods = proto as Record<string, Method>;
  methods[name] = wrap(methods[name]!);
}

/**
 * Wraps the SQL, KV and alarm methods of `ctx.storage` so every row they touch is counted. They
 * are wrapped on their prototypes, once per isolate, so a counted object keeps nothing more than
 * one that is not. Call it in the Durable Object's constructor before anything reads storage
 * (weft's own constructor included).
 */
export function countRows(ctx: DurableObjectState): void {
  const storage = Object.getPrototypeOf(ctx.storage) as object;
  if (wrapped.has(storage)) return;
  wrapped.add(storage);
  patch(Object.getPrototypeOf(ctx.storage.sql) as object, "exec", (exec) =>
    function (this: unknown, ...args: unknown[]) {
      const cursor = exec.apply(this, args) as SqlStorageCursor<Record<string, SqlStorageValue>>;
      pending.push(byStatement ? { cursor, query: args[0] as string } : { cursor });
      statements++;
      if (!folding) {
        folding = true;
        queueMicrotask(fold);
      }
      return cursor;
    },
  );
  const keys = (k: unknown) => (Array.isArray(k) ? k.length : 1);
  const counts: Record<string, (args: unknown[], out: unknown) => [number, number]> = {
    get: (a) => [keys(a[0]), 0],
    put: (a) => [0, typeof a[0] === "string" ? 1 : Object.keys(a[0] as object).length],
    delete: (a) => [0, keys(a[0])],
    list: (_a, out) => [(out as Map<string, unknown>).size, 0],
    setAlarm: () => [0, 1],
    deleteAlarm: () => [0, 1],
  };
  for (const [name, count] of Object.entries(counts)) {
    patch(storage, name, (original) =>
      async function (this: unknown, ...args: unknown[]) {
        const out = await original.apply(this, args);
        const [r, w] = count(args, out);
        rowsRead += r;
        rowsWritten += w;
        return out;
      },
    );
  }
  // The synchronous KV API (ctx.storage.kv), one key at a time.
  const kv = (ctx.storage as unknown as { kv?: object }).kv;
  if (!kv) return;
  const kvProto = Object.getPrototypeOf(kv) as object;
  for (const [name, read, written] of [["get", 1, 0], ["put", 0, 1], ["delete", 0, 1]] as const) {
    patch(kvProto, name, (original) =>
      function (this: unknown, ...args: unknown[]) {
        rowsRead += read;
        rowsWritten += written;
        return original.apply(this, args);
      },
    );
  }
  patch(kvProto, "list", (list) =>
    function (this: unknown, ...args: unknown[]) {
      const entries = [...(list.apply(this, args) as Iterable<unknown>)];
      rowsRead += entries.length;
      return entries[Symbol.iterator]();
    },
  );
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
