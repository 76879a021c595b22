/**
 * The messages kept in memory for history windows answer exactly what SQLite answers: random
 * appends at several depths, rolled-back transactions and window reads, each read checked
 * against the same query run on the table directly.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ThreadStore } from "../../../src/thread/store/index.js";
import { migrate } from "../../../src/thread/store/migrations.js";

const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
const NEWEST = Number.MAX_SAFE_INTEGER;

type Op =
  | { kind: "append"; depth: number; size: number; calls: number }
  | { kind: "rollback"; depth: number }
  | { kind: "read"; depth: number; before: number; floor: number; limit: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("append" as const), depth: fc.integer({ min: 0, max: 2 }), size: fc.integer({ min: 0, max: 3000 }), calls: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rollback" as const), depth: fc.integer({ min: 0, max: 2 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("read" as const),
      depth: fc.integer({ min: 0, max: 2 }),
      // Ids are small here: a bound near them, or none at all.
      before: fc.oneof(fc.constant(NEWEST), fc.integer({ min: 0, max: 400 })),
      floor: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 })),
      limit: fc.integer({ min: 1, max: 80 }),
    }),
  },
);

describe("history windows read from memory", () => {
  it("answer every keyset read as SQLite does, across appends and rollbacks", async () => {
    await runInDurableObject(ns.get(ns.newUniqueId()), async (_instance, state) => {
      migrate(state.storage);
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 120 }), async (ops) => {
          state.storage.sql.exec("DELETE FROM messages");
          const store = new ThreadStore(state.storage);
          const direct = (depth: number, before: number, floor: number, limit: number) =>
            state.storage.sql
              .exec<{ id: number; content: string }>("SELECT id, content FROM messages WHERE depth = ? AND id < ? AND id > ? ORDER BY id DESC LIMIT ?", depth, before, floor, limit)
              .toArray()
              .map((r) => [r.id, r.content]);
          for (const o of ops) {
            if (o.kind === "append") {
              const toolCalls = Array.from({ length: o.calls }, (_, i) => ({ id: `c${n}-${i}`, name: "t", arguments: "{}" }));
              store.messages.append({ role: o.calls ? "assistant" : "user", content: "x".repeat(o.size) + String(n++), depth: o.depth, ...(o.calls ? { toolCalls } : {}) });
            } else if (o.kind === "rollback") {
              expect(() =>
                store.atomically(() => {
                  store.messages.append({ role: "user", content: `rolled back ${n++}`, depth: o.depth });
                  throw new Error("roll back");
                }),
              ).toThrow("roll back");
            } else {
              const got = store.messages.newestFirst(o.depth, o.before, o.floor, o.limit);
              expect(got.map((m) => [m.id, m.content])).toEqual(direct(o.depth, o.before, o.floor, o.limit));
            }
          }
          // The window's own walk: newest first in keyset steps, down to nothing.
          for (const depth of [0, 1, 2]) {
            let before = NEWEST;
            for (;;) {
              const rows = store.messages.newestFirst(depth, before, 0, 7);
              expect(rows.map((m) => [m.id, m.content])).toEqual(direct(depth, before, 0, 7));
              if (rows.length < 7) break;
              before = rows.at(-1)!.id;
            }
          }
        }),
        { numRuns: 150 },
      );
    });
  });

  it("a message read from memory cannot be changed by its reader", async () => {
    await runInDurableObject(ns.get(ns.newUniqueId()), async (_instance, state) => {
      migrate(state.storage);
      const store = new ThreadStore(state.storage);
      store.messages.append({ role: "user", content: "first" });
      const [read] = store.messages.newestFirst(0, NEWEST, 0, 10);
      expect(() => {
        (read as { content: string }).content = "changed";
      }).toThrow(TypeError);
      expect(store.messages.newestFirst(0, NEWEST, 0, 10)[0]!.content).toBe("first");
    });
  });
});
