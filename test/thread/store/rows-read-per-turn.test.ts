/**
 * Cost flat in thread size: the rows SQLite reads (workerd's `cursor.rowsRead`, summed over every
 * query the thread runs) for one turn and for `GET /threads/:id` do not grow with the thread's age.
 */
import { describe, expect, it } from "vitest";
import { countRows, createThread, growHistory, json, runTurn } from "../../helpers.js";

const PAST_TURNS = 10_000;

/** One turn: a user message, a model step with a read and a write call, then a closing text. */
const SCRIPT = [
  {
    toolCalls: [
      { name: "effect_read", arguments: { label: "r" } },
      { name: "effect_write", arguments: { label: "w" } },
    ],
  },
  { text: "done" },
];

/** Rows read by one more turn, and by one `GET /threads/:id`, on a thread with `past` earlier turns. */
async function rowsOfOneTurn(past: number): Promise<{ turn: number; info: number }> {
  const threadId = await createThread({ agent: "guarantees" });
  await runTurn(threadId, "first", SCRIPT);
  if (past > 1) await growHistory(threadId, past - 1);
  // The copied rows arrive all at once, without the compaction a thread does as it grows: one turn
  // lets it catch up (it folds the old messages into a summary), as it would have turn by turn.
  // Every thread gets the same turn, so all are measured at their second turn since.
  await runTurn(threadId, "catch up", SCRIPT);
  const counter = await countRows(threadId);
  await runTurn(threadId, "measured", SCRIPT);
  const turn = await counter.read();
  const res = await json("GET", `/threads/${threadId}`);
  expect(res.status).toBe(200);
  return { turn, info: (await counter.read()) - turn };
}

describe("rows read per turn", () => {
  // A new thread's history is shorter than the model's history window; once a thread's history
  // fills the window (a token budget, see run/window.ts), a turn reads the window and no more.
  it("a turn and GET /threads/:id read as many rows on a thread with 10,000 past turns as on one with 1,000 (within 10%)", async () => {
    const fresh = await rowsOfOneTurn(1);
    const grown = await rowsOfOneTurn(1_000);
    const old = await rowsOfOneTurn(PAST_TURNS);
    console.log(
      `rows read: turn ${fresh.turn} (new thread), ${grown.turn} (1,000 past turns), ${old.turn} (${PAST_TURNS} past turns); GET /threads/:id ${fresh.info}, ${grown.info}, ${old.info}`,
    );
    expect(fresh.turn).toBeGreaterThan(0);
    expect(Math.abs(old.turn - grown.turn)).toBeLessThanOrEqual(0.1 * grown.turn);
    expect(old.info).toBe(fresh.info);
    expect(grown.info).toBe(fresh.info);
  }, 180_000);
});
