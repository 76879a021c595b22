/**
 * Messages that waited together behind a turn are admitted together: a `before_create_message`
 * hook that refuses one of them drops that one alone (a failed turn names the hook), and the others
 * still join the history and get their turn. They were all dropped, their posts answered `queued`.
 */
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, messagesOf, stubOf, until } from "../helpers.js";
import { g, holdNextFlush } from "../calls/hold.js";

const finishedOf = async (id: string) => (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);

describe("a hook refusing one of several messages that waited together", () => {
  it("drops that one alone; the messages beside it are stored and answered", async () => {
    const id = await createThread({ agent: "hooked" });
    await holdNextFlush(id, "__refused_beside");
    const first = json("POST", `/threads/${id}/messages`, { content: "first", script: [{ text: "first done" }] });
    await until(async () => g.__refused_beside?.held === true, "the first turn to be held");
    const queued = [];
    for (const content of ["before it", "forbidden-word here", "after it"]) queued.push((await json("POST", `/threads/${id}/messages`, { content, ...(content === "after it" ? { script: [{ text: "both answered" }] } : {}) })).body);
    await inThread(id, () => g.__refused_beside.open());
    await first;
    await until(async () => (await finishedOf(id)).length >= 3, "the turns to end", 15_000).catch(() => undefined);
    await stubOf(id).waitIdle();
    const contents = (await messagesOf(id)).map((m) => m.content);
    expect({ queued, stored: ["before it", "forbidden-word here", "after it"].map((c) => contents.includes(c)), answered: contents.includes("both answered"), finished: await finishedOf(id) }).toEqual({
      queued: [{ queued: true }, { queued: true }, { queued: true }],
      stored: [true, false, true],
      answered: true,
      finished: ["completed", "failed", "completed"],
    });
  }, 30_000);
});
