/**
 * The coalescing window of a streamed step (src/run/stream-events.ts) on a clock the test moves:
 * it opens with the step's first part, never with the request, so however long the provider took
 * to answer, a step whose parts all arrive within the window sends no delta event.
 */
import { describe, expect, it } from "vitest";
import { StreamEvents } from "../../src/run/stream-events.js";

function observe() {
  let clock = 0;
  const emitted: Array<{ type: string; data: any }> = [];
  const events = new StreamEvents(
    {
      emit: (type, data) => void emitted.push({ type, data }),
      progressArgumentOf: () => undefined,
      announce: async () => {},
      now: () => clock,
    },
    "turn_1",
    1,
  );
  return { events, emitted, advance: (ms: number) => void (clock += ms) };
}

describe("the coalescing window of a streamed step", () => {
  it("opens with the first part: a step that arrives at once after a slow request sends no delta", async () => {
    const { events, emitted, advance } = observe();
    // The request (reservation, the provider's time to first byte) took far longer than the window.
    advance(5_000);
    for (const delta of ["The ", "answer ", "is ", "42."]) await events.part({ type: "text-delta", delta });
    expect(emitted).toEqual([]);
    expect(events.sent).toBe(false);
  });

  it("flushes once the step has streamed for the window, one event per flush, deltas a prefix of the text", async () => {
    const { events, emitted, advance } = observe();
    advance(5_000);
    const pieces = ["a", "b", "c", "d", "e", "f"];
    for (const delta of pieces) {
      await events.part({ type: "text-delta", delta });
      advance(60);
    }
    // Parts at 0, 60, 120, 180, 240, 300 ms from the first: flushes at 120 (a-c) and 240 (d-e).
    expect(emitted.map((e) => e.data.delta)).toEqual(["abc", "de"]);
    expect(events.sent).toBe(true);
  });
});
