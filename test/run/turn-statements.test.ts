/**
 * What a scripted turn with three tool calls costs its thread's SQLite: the statements it runs,
 * the rows it writes and the syncs it waits for, counted around one turn on a warm thread.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createThread, inThread, rawStub, runTurn } from "../helpers.js";

const SCRIPT = [{ toolCalls: [0, 1, 2].map((n) => ({ name: "microtask_read", arguments: { turns: n } })) }, { text: "done" }];

/** Starts recording every statement of the thread; the returned function reads them since. */
async function recordStatements(threadId: string): Promise<() => Promise<Array<{ query: string; written: number }>>> {
  const key = `__turnStatements:${threadId}`;
  await runInDurableObject(rawStub(threadId), (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { exec: SqlStorage["exec"] };
    const seen: Array<{ query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }> = [];
    const exec = sql.exec.bind(sql);
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...(bindings as SqlStorageValue[]));
      seen.push({ query, cursor });
      return cursor;
    }) as SqlStorage["exec"];
    (globalThis as Record<string, unknown>)[key] = () => seen.map((s) => ({ query: s.query, written: s.cursor.rowsWritten }));
  });
  return () => runInDurableObject(rawStub(threadId), () => ((globalThis as Record<string, unknown>)[key] as () => Array<{ query: string; written: number }>)());
}

describe("a scripted turn with three tool calls", () => {
  it("syncs 4 times, runs at most 53 statements and writes at most 42 rows, each call row written once", async () => {
    const threadId = await createThread({ agent: "robustness" });
    await runTurn(threadId, "warm", SCRIPT);
    const statements = await recordStatements(threadId);
    const syncs = await inThread(threadId, (t: any) => t.commits.syncs as number);
    await runTurn(threadId, "measured", SCRIPT);
    const all = await statements();
    const syncsAfter = await inThread(threadId, (t: any) => t.commits.syncs as number);
    const written = all.reduce((n, s) => n + s.written, 0);
    const byQuery = new Map<string, number>();
    for (const s of all) byQuery.set(s.query.replace(/\s+/g, " ").slice(0, 110), (byQuery.get(s.query.replace(/\s+/g, " ").slice(0, 110)) ?? 0) + 1);
    const detail = [...byQuery].sort((a, b) => b[1] - a[1]).map(([q, n]) => `${n} ${q}`).join("\n");
    console.log(`turn: ${all.length} statements, ${written} rows written, ${syncsAfter - syncs} syncs`);
    // Syncs: the turn's start (its messages), each step's request count (a restart loop's guard)
    // and the step with calls before they run. None for the calls' rows, the tool results or the
    // answer: the output gate holds what follows them (src/tools/journal-order.ts).
    expect(syncsAfter - syncs, detail).toBe(4);
    // Every statement a row or event needs, and the reads around them; more means new per-turn work.
    expect(all.length, detail).toBeLessThanOrEqual(53);
    // Rows written, what Durable Object storage bills (`npm run bench:turn-rows` prints them per
    // statement): the messages, events, calls and turn rows with their indexes, the usage rows,
    // the script steps and the inbox row. More means a new row or index per turn (61 when each
    // message entered two indexes and each call one more; 51 when each event had a row of its own;
    // 47 when only a call's events and a burst's were held: the events of one synchronous stretch share a row).
    expect(written, detail).toBeLessThanOrEqual(42);
    // The calls' rows and their results: one row each, written once (a held read).
    expect(all.filter((s) => /^INSERT INTO calls/.test(s.query)).length, detail).toBe(3);
    expect(all.filter((s) => /^UPDATE calls/.test(s.query)).length, detail).toBe(0);
  });
});
