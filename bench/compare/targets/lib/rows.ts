/**
 * Rows a target's Durable Objects read and write, counted as Durable Object storage bills them:
 * each SQL cursor's `rowsRead` and `rowsWritten` (workerd's own counters, read once the cursor is
 * done with), one row per key the KV API (async and `ctx.storage.kv`) reads or writes (it keeps its
 * keys in a SQLite table), and one row written per `setAlarm` or `deleteAlarm`. Every object of a
 * target runs in one isolate under workerd, so one count per isolate covers them all (threads and,
 * for weft, accounts). Counting is off until the harness asks (`GET /__bench/rows?count`) and off
 * again once it reads the count (`GET /__bench/rows`), so timed steps run without it: each counted
 * cursor costs a few µs, and weft runs several statements per call where a baseline runs one, so
 * counting during a timed step would bill weft for the instrument.
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
/** Whether rows are counted now (between `?count` and the next read). */
let counting = false;
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
      if (!counting) return cursor;
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
        if (!counting) return out;
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
        if (counting) {
          rowsRead += read;
          rowsWritten += written;
        }
        return original.apply(this, args);
      },
    );
  }
  patch(kvProto, "list", (list) =>
    function (this: unknown, ...args: unknown[]) {
      if (!counting) return list.apply(this, args);
      const entries = [...(list.apply(this, args) as Iterable<unknown>)];
      rowsRead += entries.length;
      return entries[Symbol.iterator]();
    },
  );
}

/** Per query text: how many times it ran, and the rows it read and wrote. */
type StatementRows = Record<string, { runs: number; rowsRead: number; rowsWritten: number }>;

/**
 * Rows read and written (and SQL statements run) since counting started, across the isolate, and
 * per query text when it was started `perStatement`. Counting stops.
 */
export function takeRows(): { rowsRead: number; rowsWritten: number; statements: number; byStatement?: StatementRows } {
  fold();
  const out = { rowsRead, rowsWritten, statements, ...(byStatement ? { byStatement: detail } : {}) };
  counting = false;
  return out;
}

/** Starts counting from zero; `perStatement` also counts per query text (it costs more CPU). */
function startCounting(perStatement: boolean): void {
  fold();
  rowsRead = rowsWritten = statements = 0;
  detail = {};
  byStatement = perStatement;
  counting = true;
}

/**
 * The harness's routes: `GET /__bench/rows?count` starts counting (`?by=statement`: per query text
 * too) and `GET /__bench/rows` answers {@link takeRows}. Null for any other request.
 */
export function rowsRoute(request: Request): Response | null {
  const url = request.url;
  if (url.endsWith("/__bench/rows")) return Response.json(takeRows());
  if (url.endsWith("/__bench/rows?count") || url.endsWith("/__bench/rows?by=statement")) {
    startCounting(url.endsWith("?by=statement"));
    return Response.json({ counting: true });
  }
  return null;
}
