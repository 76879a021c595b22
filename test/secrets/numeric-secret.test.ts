/**
 * A tool that hands out a numeric secret as a number (a PIN in `state.emit` data, in a thrown
 * `WeftError`'s details) has it redacted in what is stored and sent, as one written as a string:
 * `Redactor.value` redacted strings only, so the number was stored and sent as written.
 */
import { expect, it } from "vitest";
import { createThread, eventsOf, json, subscribe } from "../helpers.js";

const PIN = "73915284";

it("a numeric secret a tool emits and throws as a number reaches neither the stored events, a socket, the answer nor the call record", async () => {
  const id = await createThread({ env: { PIN } });
  const sub = await subscribe(id, 0);
  const failed = await json("POST", "/v1/tools/emit_number", { sessionId: id, input: { name: "PIN" } });
  expect(failed.body).toMatchObject({ ok: false, status: "failed", error: "the PIN was refused" });
  await sub.until((frames) => frames.some((f) => f.type === "tool_call_finished"));
  const live = sub.frames;
  sub.close();
  const stored = await eventsOf(id);
  const calls = await json("GET", `/threads/${id}/calls`);
  for (const [where, seen] of Object.entries({ live, stored, answer: failed.body, calls: calls.body })) expect(JSON.stringify(seen), where).not.toContain(PIN);
  for (const frames of [live, stored]) {
    expect(frames.find((f) => f.type === "secret.number")?.data).toEqual({ pin: "[redacted]", list: ["[redacted]"], nested: { pin: "[redacted]" } });
    expect(frames.find((f) => f.type === "tool_call_finished")?.data).toMatchObject({ errorCode: "invalid_request", errorDetails: { pin: "[redacted]" } });
  }
  expect(calls.body.calls[0].errorDetails).toEqual({ pin: "[redacted]" });
});
