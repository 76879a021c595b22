/**
 * `MessageTail` with small bounds, against a plain array standing in for the messages table: every
 * read through the tail equals the read straight from the array, whatever was appended, trimmed
 * or forgotten before it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/protocol.js";
import { MessageTail } from "../../../src/thread/store/message-tail.js";

const NEWEST = Number.MAX_SAFE_INTEGER;

type Op =
  | { kind: "append"; depth: number; size: number }
  | { kind: "forget" }
  | { kind: "read"; depth: number; before: number; floor: number; limit: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("append" as const), depth: fc.integer({ min: 0, max: 2 }), size: fc.integer({ min: 0, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("forget" as const) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("read" as const),
      depth: fc.integer({ min: 0, max: 2 }),
      before: fc.oneof(fc.constant(NEWEST), fc.integer({ min: 0, max: 150 })),
      floor: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 150 })),
      limit: fc.integer({ min: 1, max: 12 }),
    }),
  },
);

describe("MessageTail", () => {
  it("answers every read as the table does, under tight bounds on count and size", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 200 }), (ops, maxMessages, maxChars) => {
        const table: Message[] = [];
        const tail = new MessageTail(maxMessages, maxChars);
        let storageReads = 0;
        const direct = (depth: number, before: number, floor: number, limit: number) =>
          table.filter((m) => (m.depth ?? 0) === depth && m.id < before && m.id > floor).reverse().slice(0, limit);
        for (const o of ops) {
          if (o.kind === "append") {
            const m: Message = { id: table.length + 1, role: "user", content: "y".repeat(o.size), silent: false, createdAt: 0, ...(o.depth ? { depth: o.depth } : {}) };
            // The store hands the tail the message it stored and its reader gets, as MessageStore.append does.
            table.push({ ...m });
            tail.appended(m);
          } else if (o.kind === "forget") tail.forget();
          else {
            const got = tail.newestFirst(o.depth, o.before, o.floor, o.limit, (before, floor, limit) => {
              storageReads++;
              return direct(o.depth, before, floor, limit).map((m) => ({ ...m }));
            });
            expect(got).toEqual(direct(o.depth, o.before, o.floor, o.limit));
          }
        }
        return storageReads >= 0;
      }),
      { numRuns: 2000 },
    );
  });

  it("serves a window's second read without storage once it holds the newest messages", () => {
    const tail = new MessageTail();
    const table: Message[] = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, role: "user", content: `m${i}`, silent: false, createdAt: 0 }));
    let reads = 0;
    const read = (before: number, floor: number, limit: number) => {
      reads++;
      return table.filter((m) => m.id < before && m.id > floor).reverse().slice(0, limit);
    };
    const walk = () => {
      const ids: number[] = [];
      for (let before = NEWEST; ; ) {
        const rows = tail.newestFirst(0, before, 0, 64, read);
        ids.push(...rows.map((m) => m.id));
        if (rows.length < 64) return ids;
        before = rows.at(-1)!.id;
      }
    };
    expect(walk()).toHaveLength(100);
    const first = reads;
    expect(first).toBeGreaterThan(0);
    const m: Message = { id: 101, role: "assistant", content: "new", silent: false, createdAt: 0 };
    table.push(m);
    tail.appended(m);
    expect(walk()[0]).toBe(101);
    expect(reads).toBe(first);
  });
});
