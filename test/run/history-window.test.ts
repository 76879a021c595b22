import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/protocol.js";
import { type HistorySource, estimateTokens, selectWindow } from "../../src/run/window.js";
import { createThread, inThread, json, rowsReadBy } from "../helpers.js";

/** An in-memory conversation read the way the store reads it (keyset, newest first). */
function sourceOf(messages: Message[]): HistorySource & { reads: number } {
  const source = {
    reads: 0,
    newestFirst(before: number, floor: number, limit: number) {
      const rows = messages.filter((m) => m.id < before && m.id > floor).reverse().slice(0, limit);
      source.reads += rows.length;
      return rows;
    },
  };
  return source;
}

/** Random histories: text messages, steps with calls whose results may come after injected messages, queued pairs. */
const history = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant("text" as const), role: fc.constantFrom("user", "assistant", "system"), size: fc.integer({ min: 0, max: 400 }) }),
      fc.record({ kind: fc.constant("step" as const), calls: fc.integer({ min: 1, max: 3 }), between: fc.integer({ min: 0, max: 2 }), size: fc.integer({ min: 0, max: 300 }) }),
    ),
    { minLength: 1, maxLength: 60 },
  )
  .map((items) => {
    const out: Message[] = [];
    const add = (m: Omit<Message, "id" | "silent" | "createdAt">) => out.push({ id: out.length + 1, silent: false, createdAt: 0, ...m } as Message);
    items.forEach((item, i) => {
      if (item.kind === "text") return add({ role: item.role, content: "x".repeat(item.size) });
      const calls = Array.from({ length: item.calls }, (_, j) => ({ id: `c${i}_${j}`, name: "person", arguments: '{"name":"A","age":1}' }));
      add({ role: "assistant", content: "", toolCalls: calls });
      for (let k = 0; k < item.between; k++) add({ role: "user", content: "injected" });
      for (const c of calls) add({ role: "tool", content: "r".repeat(item.size), toolCallId: c.id, name: c.name });
    });
    return out;
  });

describe("history windows", () => {
  it("a window never starts between a call and its result, always holds the newest message, and stays within budget", () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 800 }), (messages, budget) => {
        const source = sourceOf(messages);
        const window = selectWindow(source, budget);
        const ids = window.messages.map((m) => m.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(ids.at(-1)).toBe(messages.at(-1)!.id);
        // Every result in the window has its call in the window, before it.
        const calls = new Set<string>();
        for (const m of window.messages) {
          for (const c of m.toolCalls ?? []) calls.add(c.id);
          if (m.role === "tool") expect(calls.has(m.toolCallId!)).toBe(true);
        }
        // The window is a suffix of the history, so nothing in the middle goes missing.
        expect(window.messages).toEqual(messages.slice(messages.length - window.messages.length));
        const tokens = window.messages.reduce((n, m) => n + estimateTokens(m), 0);
        expect(window.tokens).toBe(tokens);
        // Over budget only when the newest step alone does not fit (then it is sent whole).
        if (tokens > budget) expect(window.messages.length === 1 || window.messages[0]!.toolCalls !== undefined).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("reads only about the window from storage: the same rows at 200 and at 20000 messages, keyset queries on the depth index", async () => {
    const measure = async (n: number) => {
      const id = await createThread({ agent: "windowed" });
      return inThread(id, async (instance) => {
        const { store } = instance;
        store.atomically(() => {
          for (let i = 0; i < n; i++) store.messages.append({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(6) });
        });
        const sql = instance.ctx.storage.sql as SqlStorage;
        const exec = sql.exec.bind(sql);
        const cursors: Array<{ query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }> = [];
        sql.exec = ((query: string, ...bindings: unknown[]) => {
          const cursor = exec(query, ...bindings);
          cursors.push({ query, cursor });
          return cursor;
        }) as typeof sql.exec;
        const { conversationWindow } = await import("../../src/run/history.js");
        const { createScriptedModel } = await import("../../src/models/scripted.js");
        let window: Message[];
        try {
          window = conversationWindow(instance.world, createScriptedModel({ next: () => undefined }));
        } finally {
          sql.exec = exec;
        }
        const plans = cursors
          .filter((c) => /FROM messages/.test(c.query))
          .map((c) => exec(`EXPLAIN QUERY PLAN ${c.query}`, ...[0, 0, 0, 0].slice(0, (c.query.match(/\?/g) ?? []).length)).toArray().map((r) => String(r.detail)).join("; "));
        return { window, rowsRead: cursors.reduce((n, c) => n + c.cursor.rowsRead, 0), plans, queries: cursors.map((c) => c.query) };
      });
    };
    const small = await measure(200);
    const large = await measure(20_000);
    expect(large.window.at(-1)!.content).toContain("message 19999");
    // Longer ids make the large thread's messages a little longer, so its window holds a few fewer.
    expect(large.window.length).toBeGreaterThan(small.window.length * 0.7);
    expect(large.window.length).toBeLessThanOrEqual(small.window.length);
    // The window (under 600 tokens here) plus one keyset step of look-ahead, whatever the history's length.
    expect(large.rowsRead).toBeLessThan(200);
    expect(large.rowsRead).toBeLessThanOrEqual(small.rowsRead + 10);
    expect(large.queries.some((q) => /OFFSET/i.test(q))).toBe(false);
    for (const plan of large.plans) expect(plan).toMatch(/USING (COVERING )?INDEX messages_by_depth|USING INTEGER PRIMARY KEY/);
    expect(large.plans.join(" ")).not.toMatch(/SCAN messages(?! USING)/);
    // Writing 20,200 messages is the slow part; on a loaded machine it outlasts the default 5 s.
  }, 120_000);
});

describe("messages by depth", () => {
  it("reads each depth's own messages by the depth index; a message enters no index by visibility", async () => {
    const id = await createThread({ agent: "windowed" });
    const found = await inThread(id, (instance) => {
      const { store } = instance;
      const sql = instance.ctx.storage.sql as SqlStorage;
      store.atomically(() => {
        for (let i = 0; i < 60; i++) store.messages.append({ role: "user", content: `m${i}`, depth: i % 3 === 0 ? 0 : (i % 3) });
      });
      const plan = (depth: number) => {
        const seen: string[] = [];
        const exec = sql.exec.bind(sql);
        sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => (seen.push(query), exec(query, ...bindings))) as typeof sql.exec;
        let read: Message[];
        try {
          read = store.messages.oldestFirst(depth, 0, Number.MAX_SAFE_INTEGER, 100);
        } finally {
          sql.exec = exec;
        }
        const detail = exec(`EXPLAIN QUERY PLAN ${seen[0]}`, depth, 0, Number.MAX_SAFE_INTEGER, 100).toArray().map((r) => String(r.detail)).join("; ");
        return { contents: read.map((m) => m.content), detail };
      };
      const indexes = sql.exec<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages' ORDER BY name").toArray();
      return { d0: plan(0), d1: plan(1), d2: plan(2), indexes: indexes.map((r) => `${r.name}: ${r.sql.replace(/\s+/g, " ")}`) };
    });
    expect(found.d0.contents).toEqual(Array.from({ length: 20 }, (_, k) => `m${k * 3}`));
    expect(found.d1.contents).toEqual(Array.from({ length: 20 }, (_, k) => `m${k * 3 + 1}`));
    expect(found.d2.contents).toEqual(Array.from({ length: 20 }, (_, k) => `m${k * 3 + 2}`));
    expect(found.d0.detail).toMatch(/USING (COVERING )?INDEX messages_by_depth/);
    expect(found.d1.detail).toMatch(/USING (COVERING )?INDEX messages_by_depth/);
    expect(found.d2.detail).toMatch(/USING (COVERING )?INDEX messages_by_depth/);
    // One index a message of the conversation enters (each bills as one more row written): by depth, so its
    // window never reads the nested runs between its messages; none by visibility (a page reads past silent ones).
    expect(found.indexes).toEqual([
      "messages_by_depth: CREATE INDEX messages_by_depth ON messages (depth, id)",
      "messages_by_prompt_call: CREATE INDEX messages_by_prompt_call ON messages (prompt_call, id) WHERE prompt_call IS NOT NULL",
    ]);
  });
});

describe("getMessages cursors", () => {
  it("pages back with before and forward with after; every page costs the same; bad cursors are 400 with a path", async () => {
    const id = await createThread({ agent: "windowed" });
    const ids = await inThread(id, (instance) =>
      instance.store.atomically(() => Array.from({ length: 57 }, (_, i) => instance.store.messages.append({ role: "user", content: `m${i}`, silent: i % 10 === 9 }).id)),
    );
    const visible = ids.filter((_: number, i: number) => i % 10 !== 9);
    // Backward from the newest, 10 at a time, through the HTTP route.
    const seen: number[] = [];
    let before: number | undefined;
    for (;;) {
      const res = await json("GET", `/threads/${id}/messages?limit=10&order=desc${before ? `&before=${before}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(visible.length);
      seen.push(...res.body.messages.map((m: Message) => m.id));
      if (!res.body.hasMore) break;
      before = res.body.messages.at(-1).id;
    }
    expect(seen).toEqual([...visible].reverse());
    // Forward with after, silent messages included.
    const forward: number[] = [];
    let after = 0;
    for (let hasMore = true; hasMore; ) {
      const res = await json("GET", `/threads/${id}/messages?limit=25&after=${after}&includeSilent=true`);
      forward.push(...res.body.messages.map((m: Message) => m.id));
      hasMore = res.body.hasMore;
      after = forward.at(-1)!;
    }
    expect(forward).toEqual(ids);
    // Between two cursors.
    const between = await json("GET", `/threads/${id}/messages?after=${ids[3]}&before=${ids[8]}&includeSilent=true`);
    expect(between.body.messages.map((m: Message) => m.id)).toEqual(ids.slice(4, 8));
    expect(between.body.hasMore).toBe(false);
    for (const bad of ["before=-1", "after=abc", "before=1.5"]) {
      const res = await json("GET", `/threads/${id}/messages?${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(JSON.stringify(res.body.error)).toContain(bad.split("=")[0]);
    }
    // Through ThreadState, a bad cursor names its path too.
    const err = await inThread(id, async (instance) => {
      const { createThreadState } = await import("../../src/run/state.js");
      return createThreadState(instance.world, undefined, null)
        .getMessages({ before: -3 })
        .catch((e: { code: string; details?: { path?: unknown } }) => ({ code: e.code, path: e.details?.path }));
    });
    expect(err).toMatchObject({ code: "invalid_request", path: ["before"] });
  });

  it("a deep page read with a cursor reads as many rows as the first page", async () => {
    const id = await createThread({ agent: "windowed" });
    const rows = await inThread(id, async (instance) => {
      const { store } = instance;
      const ids: number[] = store.atomically(() => Array.from({ length: 20_000 }, (_, i) => store.messages.append({ role: "user", content: `m${i}` }).id));
      const read = (fn: () => unknown) => rowsReadBy(instance.ctx.storage.sql as SqlStorage, fn);
      return {
        first: read(() => store.messages.list({ limit: 20, order: "desc" })),
        deep: read(() => store.messages.list({ limit: 20, order: "desc", before: ids[100] })),
        deepOffset: read(() => store.messages.list({ limit: 20, order: "desc", offset: 19_900 })),
      };
    });
    expect(rows.deep).toBeLessThanOrEqual(rows.first + 2);
    expect(rows.deepOffset).toBeGreaterThan(10 * rows.deep);
  });
});
