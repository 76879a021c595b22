/**
 * A model names its calls' ids and tools, and a user may point their thread at an endpoint of their
 * own (hostile review): a 1.9 MB call id or tool name (small arguments, so the step fit its byte
 * bound) made a call row and an event Cloudflare refuses, and the turn failed on it. Both are cut
 * as the step is read; the call then runs or fails as any other, and the turn goes on.
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { callsOf, json, stubOf } from "../helpers.js";
import { oversizedWrites } from "../row-limit.js";

const HUGE = 1_900_000;

for (const [what, call] of [
  ["call id", { id: "c".repeat(HUGE), name: "record_call", arguments: '{"note":"x"}' }],
  ["tool name", { id: "c1", name: "n".repeat(HUGE), arguments: "{}" }],
] as const) {
  it(`a model's ${HUGE}-character ${what} is cut: nothing oversized is written, the turn completes`, async () => {
    const before = oversizedWrites.length;
    const k = fakeKey(`huge-${what.replace(" ", "-")}`);
    await scriptFake(k, [{ toolCalls: [call] }, { text: "done" }]);
    const id = (await json("POST", "/threads", { agent: "robustness", env: fakeEnv("openai-compatible:m", k) })).body.threadId;
    expect((await json("POST", `/threads/${id}/messages`, { content: "go" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const info = await json("GET", `/threads/${id}`);
    expect(info.body.lastTurn).toMatchObject({ status: "completed" });
    const [made] = await callsOf(id);
    expect(made!.callId.length + made!.toolName.length).toBeLessThan(1000);
    expect(oversizedWrites.slice(before)).toEqual([]);
  });
}
