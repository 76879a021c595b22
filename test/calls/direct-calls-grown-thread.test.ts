/**
 * Cost flat in thread size for direct calls: a read and a write call read and write as many rows on
 * a thread with 20,000 past calls as on a new one, and the ids weft makes sort in the order they
 * were made (each new row's key lands at its index's right edge, not on a random page).
 */
import { describe, expect, it } from "vitest";
import { runDurableObjectAlarm } from "cloudflare:test";
import { countRows, createThread, growHistory, inThread, json, rawStub, runTurn } from "../helpers.js";

const PAST_COPIES = 10_000;

/** One direct call of `tool` on `thread`; fails the test unless it succeeded. */
async function call(thread: string, tool: string, label: string): Promise<string> {
  const res = await json("POST", `/v1/tools/${tool}`, { input: { label }, sessionId: thread });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.ok).toBe(true);
  return res.body.callId as string;
}

/** Rows read and written by one direct read call and one direct write call, on a thread with `copies` x 2 past calls. */
async function rowsOfTwoCalls(copies: number): Promise<{ read: number; written: number }> {
  const thread = await createThread({ agent: "guarantees" });
  await call(thread, "effect_read", "r");
  await call(thread, "effect_write", "w");
  if (copies > 0) await growHistory(thread, copies);
  // Each thread catches up alike (the grown one's stores forgot their kept seq and ord).
  await call(thread, "effect_read", "r");
  await call(thread, "effect_write", "w");
  // The fewest of three counts: a watchdog alarm (due 2 s after a call stored an unfinished row) that
  // a loaded machine lets fire inside the counted calls adds its own reads, never takes any away, so
  // the fewest is the calls' own cost, and a cost that grows with the thread still shows in it.
  let fewest = { read: Infinity, written: Infinity };
  for (let round = 0; round < 3; round++) {
    // An alarm left by the calls above fires now, not inside the counted calls.
    await runDurableObjectAlarm(rawStub(thread));
    const counter = await countRows(thread);
    await call(thread, "effect_read", "r");
    await call(thread, "effect_write", "w");
    fewest = { read: Math.min(fewest.read, await counter.read()), written: Math.min(fewest.written, await counter.written()) };
  }
  return fewest;
}

describe("direct calls on a grown thread", () => {
  it("a read and a write call read and write as many rows on a thread with 20,000 past calls as on a new one", async () => {
    const fresh = await rowsOfTwoCalls(0);
    const grown = await rowsOfTwoCalls(PAST_COPIES);
    console.log(`rows per read + write call: read ${fresh.read} (new thread), ${grown.read} (20,000 past calls); written ${fresh.written}, ${grown.written}`);
    expect(fresh.read).toBeGreaterThan(0);
    expect(fresh.written).toBeGreaterThan(0);
    expect(grown).toEqual(fresh);
  }, 120_000);

  it("ids weft makes for calls and turns sort in the order they were made", async () => {
    const thread = await createThread({ agent: "guarantees" });
    for (let i = 0; i < 6; i++) {
      await call(thread, i % 2 ? "effect_write" : "effect_read", `c${i}`);
      // Ids of one millisecond are ordered only by their random part; a pause puts each in its own.
      await scheduler.wait(3);
    }
    for (let i = 0; i < 3; i++) {
      await runTurn(thread, `turn ${i}`, [{ toolCalls: [{ name: "effect_read", arguments: { label: `t${i}` } }] }, { text: "done" }]);
      await scheduler.wait(3);
    }
    const ids = await inThread(thread, (instance) => {
      const sql = (instance.ctx as DurableObjectState).storage.sql;
      return {
        direct: sql.exec<{ call_id: string }>("SELECT call_id FROM calls WHERE source = 'direct' ORDER BY ord").toArray().map((r) => r.call_id),
        model: sql.exec<{ call_id: string }>("SELECT call_id FROM calls WHERE source = 'model' ORDER BY ord").toArray().map((r) => r.call_id),
        turns: sql.exec<{ turn_id: string }>("SELECT turn_id FROM turns ORDER BY ord").toArray().map((r) => r.turn_id),
      };
    });
    expect(ids.direct).toHaveLength(6);
    expect(ids.model).toHaveLength(3);
    expect(ids.turns).toHaveLength(3);
    // Per prefix (`tool_<name>_`, `call_`, `turn_`): later ids sort after earlier ones.
    const prefixOf = (id: string) => id.slice(0, id.lastIndexOf("_"));
    const direct = [...new Set(ids.direct.map(prefixOf))].map((p) => ids.direct.filter((id) => prefixOf(id) === p));
    expect(direct).toHaveLength(2);
    for (const group of [...direct, ids.model, ids.turns]) expect(group).toEqual([...group].sort());
  });
});
