/**
 * Review (events): as test/review/resume-deltas.test.ts, for a prompt called as a tool. A restart
 * that cuts a prompt call resumes its nested run (its effect is reconcilable), which asks its cut
 * step again and streams it from the start under the same `turnId` (`prompt_<callId>`) and step:
 * the deltas since the step's last `model_step_discarded` must still be a prefix of its
 * `model_step` text.
 */
import { expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, inThread, json, stubOf, until } from "../helpers.js";

it("a nested prompt step cut by a restart mid-stream: its deltas since its last model_step_discarded are a prefix of its model_step text", async () => {
  const key = fakeKey("review-resume-nested");
  await scriptFake(key, [
    { toolCalls: [{ id: "sum1", name: "summarize", arguments: JSON.stringify({ input: "a text" }) }] },
    { text: "cut ".repeat(400), chunk: 8, delayMs: 40 },
    { text: "nested answer" },
    { text: "outer answer" },
  ]);
  const id = await createThread({ agent: "nested", env: fakeEnv("openai-compatible:x", key) });
  await json("POST", `/threads/${id}/messages`, { content: "go" });
  await until(async () => (await fakeRequests(key)).length >= 2, "the nested request");
  await until(async () => inThread(id, (t) => t.events.since(0).some((f: EventFrame) => f.type === "text_delta" && (f.data as { turnId: string }).turnId.startsWith("prompt_"))), "a nested text_delta");
  await inThread(id, (t) => t.ctx.abort("restart mid-stream")).catch(() => undefined);
  await until(async () => ["completed", "failed", "stopped", "waiting"].includes((await json("GET", `/threads/${id}`)).body.lastTurn?.status), "the resumed turn to end", 60_000);
  await stubOf(id).waitIdle();
  const frames = await eventsOf(id);
  const steps = frames.filter((f) => f.type === "model_step").map((f) => f.data as { turnId: string; step: number; text: string });
  const nested = steps.find((s) => s.turnId.startsWith("prompt_"));
  expect(nested, `turn: ${JSON.stringify((await json("GET", `/threads/${id}`)).body.lastTurn)}`).toBeDefined();
  let shown = "";
  for (const f of frames) {
    const d = f.data as { turnId?: string; step?: number; delta?: string };
    if (d?.turnId !== nested!.turnId || d.step !== nested!.step) continue;
    if (f.type === "model_step_discarded") shown = "";
    if (f.type === "text_delta") shown += d.delta;
  }
  expect(nested!.text.startsWith(shown), `deltas shown: ${JSON.stringify(shown.slice(0, 60))}...; model_step: ${JSON.stringify(nested!.text)}`).toBe(true);
});
