/**
 * The order script steps are played in (src/models/script-queue.ts), over rows kept in memory:
 * each step once, a held step left next, a paced step kept stored while it streams (skipped by a
 * second request meanwhile) and deleted when its stream ends.
 */
import { describe, expect, it } from "vitest";
import { type ScriptRows, ScriptQueue } from "../../src/models/script-queue.js";
import { normalizeScript, type StoredStep } from "../../src/models/scripted.js";

/** Rows in memory, as the `script` table holds them. */
function memoryRows(): ScriptRows & { texts(): string[] } {
  const rows: Array<{ id: number; step: StoredStep }> = [];
  let last = 0;
  return {
    add: (steps) => steps.forEach((step) => rows.push({ id: ++last, step: structuredClone(step) })),
    first: (after) => {
      const row = rows.find((r) => r.id > after);
      return row && { id: row.id, step: structuredClone(row.step) };
    },
    drop: (id) => void rows.splice(rows.findIndex((r) => r.id === id), 1),
    texts: () => rows.map((r) => r.step.text),
  };
}

describe("the script queue", () => {
  it("plays each step once, deleting it as it is taken; a step ready refuses stays next", () => {
    const rows = memoryRows();
    const queue = new ScriptQueue(rows);
    queue.add(normalizeScript([{ text: "a" }, { text: "b", waitFor: "go" }]));
    expect(queue.next()?.text).toBe("a");
    expect(queue.next((s) => s.waitFor === undefined)).toBeNull();
    expect(rows.texts()).toEqual(["b"]);
    expect(queue.next()?.text).toBe("b");
    expect(queue.next()).toBeUndefined();
  });

  it("keeps a paced step stored until its stream ended, and gives a request meanwhile the step after it", () => {
    const rows = memoryRows();
    const queue = new ScriptQueue(rows);
    queue.add(normalizeScript([{ chunks: ["x ", "y "], chunkDelayMs: 10 }, { text: "after" }]));
    const paced = queue.next()!;
    expect(paced.text).toBe("x y ");
    // Still stored: a restart now (which forgets the queue) plays it again.
    expect(rows.texts()).toEqual(["x y ", "after"]);
    expect(new ScriptQueue(rows).next()?.text).toBe("x y ");
    expect(queue.next()?.text).toBe("after");
    queue.ended(paced);
    expect(rows.texts()).toEqual([]);
    expect(queue.next()).toBeUndefined();
  });
});
