/**
 * Review 25c: a stop while an admission's before_create_message hook was stuck did not end the
 * wait: the rows stayed in the inbox with the stop kept, and the loop admitted them again at once,
 * so the stuck hook was waited for again (30 s), the thread stayed `running`, and at the deadline
 * the message its post answered `202 { queued: true }` was dropped as refused. Held rows now wait
 * for the next post.
 */
import { describe, expect, it } from "vitest";
import { createThread, eventsOf, inThread, json, messagesOf, until } from "../helpers.js";
import { stuck } from "../fixtures/lib/hooked.js";

describe("review 25c: a stop while a before_create_message hook is stuck for good", () => {
  it("lands promptly, and the message its post answered queued is not lost", async () => {
    const id = await createThread({ agent: "hooked_too" });
    const post = json("POST", `/threads/${id}/messages`, { content: "[hang] hello" });
    await until(async () => stuck[id]?.hook === "before_create_message", "the hook to hang", 20_000);
    const stopped = (await json("POST", `/threads/${id}/stop`)).body;
    const posted = await post;
    const began = Date.now();
    await until(async () => (await json("GET", `/threads/${id}`)).body.status !== "running", "the thread to stop running", 45_000).catch(() => undefined);
    const tookMs = Date.now() - began;
    const contents = (await messagesOf(id)).map((m) => m.content);
    const inbox = await inThread(id, (t) => t.world.store.turns.inboxSize() as number);
    const turns = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => (e.data as { status: string }).status);
    expect({ stopped, posted: [posted.status, posted.body], landedWithin12s: tookMs < 12_000, kept: contents.includes("[hang] hello") || inbox > 0, turns: turns.filter((s) => s !== "stopped") }).toEqual({
      stopped: { stopped: true },
      posted: [202, { queued: true }],
      landedWithin12s: true,
      kept: true,
      turns: [],
    });
  }, 90_000);
});
