/**
 * Review 25b: a stop that cuts a before_create_message hook of a message that was answered
 * `202 { queued: true }` (it waited behind another turn) drops that message without a trace:
 * README says `queued: true` means the message "waits for the next" turn.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread, json, messagesOf, until } from "../helpers.js";
import { stuck } from "../fixtures/lib/hooked.js";
import { g, holdAdmission } from "../calls/hold.js";

const untilStuck = (id: string, hook: string) => until(async () => stuck[id]?.hook === hook, `hook ${hook} to hang`, 20_000);

describe("a stop while a queued message's before_create_message hook runs", () => {
  it("does not lose a message its post answered 202 queued: it is stored, or still waits in the inbox", async () => {
    const id = await createThread({ agent: "hooked_too" });
    // Hold the first message's admission so the thread is busy when the second is posted.
    await holdAdmission(id, "__rv25b_q1", (c) => c.includes("first"));
    const first = json("POST", `/threads/${id}/messages`, { content: "first", script: [{ text: "first done" }] });
    await until(async () => g.__rv25b_q1?.held === true, "the first admission to be held");
    const second = await json("POST", `/threads/${id}/messages`, { content: "[hang] second", script: [{ text: "second done" }] });
    expect([second.status, second.body.queued]).toEqual([202, true]);
    await inThread(id, () => g.__rv25b_q1.open());
    expect((await first).status).toBe(202);
    // Turn 1 completes; the loop admits the queued message, whose hook hangs.
    await untilStuck(id, "before_create_message");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await until(async () => (await json("GET", `/threads/${id}`)).body.status !== "running", "the stop to land", 15_000).catch(() => undefined);
    const contents = (await messagesOf(id)).map((m) => m.content);
    const inbox = await inThread(id, (t) => t.world.store.turns.inboxSize() as number);
    // The queued message was promised a turn: it joined the history or it still waits.
    expect({ kept: contents.includes("[hang] second") || inbox > 0, contents, inbox }).toEqual({ kept: true, contents: expect.any(Array), inbox: expect.any(Number) });
  }, 60_000);

  it("does not lose a queued message whose hooks never ran: it was only admitted beside the one whose hook the stop cut", async () => {
    const id = await createThread({ agent: "hooked_too" });
    await holdAdmission(id, "__rv25b_q2", (c) => c.includes("first"));
    const first = json("POST", `/threads/${id}/messages`, { content: "first", script: [{ text: "first done" }] });
    await until(async () => g.__rv25b_q2?.held === true, "the first admission to be held");
    const second = await json("POST", `/threads/${id}/messages`, { content: "[hang] second" });
    const third = await json("POST", `/threads/${id}/messages`, { content: "third", script: [{ text: "third done" }] });
    expect([second.body.queued, third.body.queued]).toEqual([true, true]);
    await inThread(id, () => g.__rv25b_q2.open());
    await first;
    await untilStuck(id, "before_create_message");
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await until(async () => (await messagesOf(id)).some((m) => m.content === "third") || (await inThread(id, (t) => t.world.store.turns.inboxSize() as number)) > 0, "the third message to be kept", 10_000).catch(() => undefined);
    const contents = (await messagesOf(id)).map((m) => m.content);
    const inbox = await inThread(id, (t) => t.world.store.turns.inboxSize() as number);
    expect({ kept: contents.includes("third") || inbox > 0, contents, inbox }).toEqual({ kept: true, contents: expect.any(Array), inbox: expect.any(Number) });
  }, 60_000);
});
