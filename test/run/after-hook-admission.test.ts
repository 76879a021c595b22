/**
 * An after_create_message hook that throws as a message is admitted: the turn the admission began
 * (in its transaction, before the after hooks run) ends failed, naming the hook. Review 24a: a second,
 * failed turn was begun and the first left running for good, so a parent's call on such a child
 * stayed parked. The message is stored all the same, and its post answers it (it answered
 * `hook_failed`, so a client posted the stored message again).
 */
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { g, holdNextFlush } from "../calls/hold.js";

/** Gives the thread's world an after_create_message hook that throws for user messages holding "boom" (before any createMessages cached its hooks). */
async function throwingAfterHook(id: string): Promise<void> {
  await inThread(id, (t) => {
    const w = t.world;
    w.agent = {
      ...w.agent,
      hooks: {
        ...(w.agent.hooks ?? {}),
        after_create_message: async (_s: unknown, m: { role: string; content: string }) => {
          if (m.role === "user" && m.content.includes("boom")) throw new Error("after refused");
        },
      },
    };
  });
}

const turnRows = (id: string) =>
  inThread(id, (t) => t.ctx.storage.sql.exec("SELECT status, stop_requested AS stop FROM turns ORDER BY ord").toArray() as Array<{ status: string; stop: string | null }>);

describe("an after_create_message hook that throws on admission", () => {
  it("leaves no turn running: the refused admission records one failed turn, and the post answers its stored message", async () => {
    const id = await createThread({ agent: "guarantees" });
    await throwingAfterHook(id);
    const posted = await json("POST", `/threads/${id}/messages`, { content: "boom", script: [{ text: "never" }] });
    await stubOf(id).waitIdle();
    const rows = await turnRows(id);
    const child = await inThread(id, (t) => t.runner.firstTurn.answer().status);
    const history = (await messagesOf(id)).map((m) => m.content);
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { error?: string }).error);
    expect({ status: posted.status, message: posted.body.message?.content, history, finished, rows: rows.map((r) => r.status), child }).toEqual({
      // The message is stored (an after hook cannot refuse it): answered as stored, so a client does not post it again.
      status: 202,
      message: "boom",
      history: ["boom"],
      finished: [expect.stringContaining("after refused")],
      // Not ["running", "failed"]: the row begun in the admission's transaction is the one that fails.
      rows: ["failed"],
      // The thread's first turn is what a parent reads of a child.
      child: "failed",
    });
  }, 30_000);

  it("a loop admission (message queued behind a turn) refused by the hook leaves no turn running", async () => {
    const id = await createThread({ agent: "guarantees" });
    await throwingAfterHook(id);
    const first = await json("POST", `/threads/${id}/messages`, { content: "one", script: [{ text: "one done" }] });
    expect(first.status).toBe(202);
    await stubOf(id).waitIdle();
    // Queue "boom" behind a held turn: hold the next admission's flush.
    await holdNextFlush(id, "__rv_loop");
    const post2 = json("POST", `/threads/${id}/messages`, { content: "two", script: [{ text: "two done" }] });
    await until(async () => g.__rv_loop?.held === true, "held");
    const queued = await json("POST", `/threads/${id}/messages`, { content: "boom", script: [{ text: "never" }] });
    await inThread(id, () => g.__rv_loop.open());
    await post2;
    await stubOf(id).waitIdle();
    const rows = await turnRows(id);
    expect({ queued: queued.body, rows: rows.map((r) => r.status), latest: (await json("GET", `/threads/${id}`)).body.status }).toEqual({
      queued: { queued: true },
      rows: ["completed", "completed", "failed"],
      latest: "idle",
    });
  }, 30_000);
});
