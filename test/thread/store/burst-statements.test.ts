/**
 * A burst of `state.emit` is stored in multi-row INSERTs of held events (EventLog.hold), not one
 * statement per event; held events never bind more than about 256 KiB of UTF-8 at once, and an
 * event over that alone is stored at once, by itself. The log still numbers every event in emit
 * order with no gap.
 */
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../../src/protocol.js";
import { createThread, eventsOf, inThread, json, recordStatements } from "../../helpers.js";

const utf8 = new TextEncoder();
/** Records the events INSERTs `threadId`'s object runs, each as the UTF-8 bytes of the text it binds. */
const recordEventInserts = (threadId: string) =>
  recordStatements(threadId, (query, bindings) =>
    /^INSERT INTO events/.test(query) ? bindings.reduce<number>((n, b) => n + (typeof b === "string" ? utf8.encode(b).length : 0), 0) : undefined,
  );

const ticks = (frames: EventFrame[]) => frames.filter((f) => f.type === "tick").map((f) => (f.data as { i: number }).i);

describe("a burst of state.emit", () => {
  it("stores 100 events in at most 8 statements, numbered in emit order with no gap", async () => {
    const id = await createThread({ agent: "robustness" });
    const inserts = await recordEventInserts(id);
    const answer = await json("POST", "/v1/tools/emit_burst", { input: { count: 100, bytes: 10 }, sessionId: id });
    expect(answer.status).toBe(200);
    // 100 ticks and the call's two events, 16 to a statement: 7 (one per event before).
    expect((await inserts.take()).length).toBeLessThanOrEqual(8);
    const frames = await eventsOf(id);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(ticks(frames)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(frames.at(-1)!.type).toBe("tool_call_finished");
  });

  it("keeps the events one statement stores in one row, and replays exactly from every cursor, inside a row too", async () => {
    const id = await createThread({ agent: "robustness" });
    const before = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM events").one().n as number);
    const answer = await json("POST", "/v1/tools/emit_burst", { input: { count: 40, bytes: 10 }, sessionId: id });
    expect(answer.status).toBe(200);
    const rows = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM events").one().n as number);
    // 40 ticks and the call's two events, 16 to a statement: 3 rows written (one per event before).
    expect(rows - before).toBeLessThanOrEqual(3);
    const frames = await eventsOf(id);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(ticks(frames)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    for (let since = 0; since < frames.length; since++) expect(await eventsOf(id, since), `since ${since}`).toEqual(frames.slice(since));
    // A page smaller than a row ends inside it (replay pages by frames and characters).
    const page = await inThread(id, (i) => ({ frames: i.store.events.since(3, 5).map((f: EventFrame) => f.seq), chars: i.store.events.since(3, 100, 1).map((f: EventFrame) => f.seq) }));
    expect(page.frames).toEqual([4, 5, 6, 7, 8]);
    expect(page.chars.length).toBeGreaterThanOrEqual(1);
    expect(page.chars).toEqual(frames.slice(3, 3 + page.chars.length).map((f) => f.seq));
  });

  it("binds at most about 256 KiB of held events' UTF-8 in one statement", async () => {
    const id = await createThread({ agent: "robustness" });
    const inserts = await recordEventInserts(id);
    // 17,000 "€" are 51,000 bytes of UTF-8 for 17,000 UTF-16 units.
    const answer = await json("POST", "/v1/tools/emit_burst", { input: { count: 15, bytes: 17_000, char: "€" }, sessionId: id });
    expect(answer.status).toBe(200);
    const sizes = await inserts.take();
    for (const size of sizes) expect(size).toBeLessThanOrEqual(256 * 1024 + 2_000);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    expect(ticks(await eventsOf(id))).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });

  it("stores an event over that bound at once, by itself", async () => {
    const id = await createThread({ agent: "robustness" });
    const inserts = await recordEventInserts(id);
    const answer = await json("POST", "/v1/tools/emit_burst", { input: { count: 6, bytes: 200_000 }, sessionId: id });
    expect(answer.status).toBe(200);
    const sizes = await inserts.take();
    // Each tick alone (never two, never with the call's events).
    expect(sizes.filter((size) => size > 200_000)).toHaveLength(6);
    for (const size of sizes) expect(size).toBeLessThan(201_000);
    expect(ticks(await eventsOf(id))).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
