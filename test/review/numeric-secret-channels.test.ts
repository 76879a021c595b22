/**
 * Hostile review: a numeric secret a tool hands out as a number through its other outputs (an
 * injected message's metadata, a queued call's arguments, a schedule's tool input, the progress its
 * code reports), or a `before_create_message` hook in the metadata it returns, reaches no stored event, socket frame, answer or listing. Those passed
 * `Redactor.value`, which leaves numbers (weft's own), where what the tool emits, returns or throws
 * passes `Redactor.content`.
 */
import { expect, it } from "vitest";
import { createThread, eventsOf, json, subscribe } from "../helpers.js";

const PIN = "73915284";

for (const via of ["inject", "queue", "schedule", "progress"] as const) {
  it(`a numeric secret a tool hands out as a number (${via}) is redacted everywhere a client reads`, async () => {
    const id = await createThread({ env: { PIN } });
    const sub = await subscribe(id, 0);
    const called = await json("POST", "/v1/tools/hand_number", { sessionId: id, input: { name: "PIN", via } });
    expect(called.body, JSON.stringify(called.body)).toMatchObject({ ok: true });
    await sub.until((frames) => frames.some((f) => f.type === "tool_call_finished" && (f.data as { toolName?: string }).toolName === "hand_number"));
    // A queued call runs after its parent: its start is announced by then.
    if (via === "queue") await sub.until((frames) => frames.some((f) => f.type === "tool_call_finished" && (f.data as { toolName?: string }).toolName === "record_call"));
    const live = sub.frames;
    sub.close();
    const stored = await eventsOf(id);
    const reads = {
      live,
      stored,
      answer: called.body,
      calls: (await json("GET", `/threads/${id}/calls`)).body,
      messages: (await json("GET", `/threads/${id}/messages`)).body,
      schedules: (await json("GET", `/threads/${id}/schedules`)).body,
    };
    for (const [where, seen] of Object.entries(reads)) expect(JSON.stringify(seen), where).not.toContain(PIN);
  });
}

it("a numeric secret a before_create_message hook puts in a message's metadata as a number is redacted in the stored message, its event and the listing", async () => {
  const id = await createThread({ agent: "hooked", env: { PIN } });
  const sub = await subscribe(id, 0);
  const posted = await json("POST", `/threads/${id}/messages`, { content: "pin-meta", script: [{ text: "ok" }] });
  expect(posted.status, JSON.stringify(posted.body)).toBe(202);
  await sub.until((frames) => frames.some((f) => f.type === "turn_finished"));
  const live = sub.frames;
  sub.close();
  const messages = (await json("GET", `/threads/${id}/messages`)).body;
  for (const [where, seen] of Object.entries({ posted: posted.body, live, stored: await eventsOf(id), messages })) expect(JSON.stringify(seen), where).not.toContain(PIN);
  expect(JSON.stringify(messages)).toContain('"pin":"[redacted]"');
});
