/**
 * Review (events): a model step that a restart cut mid-stream is requested again after the
 * restart, and its new attempt streams `text_delta`s for the same turn and step from the start.
 * The wire contract (src/events.ts, `text_delta`): the deltas of a step since its last
 * `model_step_discarded` concatenate to a prefix of its `model_step` text. The deltas the cut
 * attempt sent before the restart must therefore be voided by a `model_step_discarded` before the
 * resumed attempt's deltas, as they are when a stream is cut without a restart.
 */
import { expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, inThread, json, stubOf, until } from "../helpers.js";

it("a step cut by a restart mid-stream: its deltas since its last model_step_discarded are a prefix of its model_step text", async () => {
  const key = fakeKey("review-resume-deltas");
  // A slow stream of words (released at each space), then the answer the resumed attempt gets.
  await scriptFake(key, [{ text: "cut ".repeat(400), chunk: 8, delayMs: 40 }, { text: "second answer" }]);
  const id = await createThread({ agent: "stepper", env: fakeEnv("openai-compatible:x", key) });
  await json("POST", `/threads/${id}/messages`, { content: "go" });
  await until(async () => (await fakeRequests(key)).length >= 1, "the first request");
  // Restarted once the cut attempt's first delta is stored (and so sent).
  await until(async () => inThread(id, (t) => t.events.since(0).some((f: EventFrame) => f.type === "text_delta")), "a text_delta");
  await inThread(id, (t) => t.ctx.abort("restart mid-stream")).catch(() => undefined);
  await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status === "completed", "the resumed turn to complete");
  await stubOf(id).waitIdle();
  expect(await fakeRequests(key)).toHaveLength(2);

  const frames = await eventsOf(id);
  const step = frames.find((f) => f.type === "model_step")!.data as { turnId: string; step: number; text: string };
  expect(step.text).toBe("second answer");
  // What a client shows as the step streams, by the documented rule.
  let shown = "";
  for (const f of frames) {
    const d = f.data as { turnId?: string; step?: number; delta?: string };
    if (d?.turnId !== step.turnId || d.step !== step.step) continue;
    if (f.type === "model_step_discarded") shown = "";
    if (f.type === "text_delta") shown += d.delta;
  }
  expect(step.text.startsWith(shown), `deltas shown: ${JSON.stringify(shown.slice(0, 60))}...`).toBe(true);
});
