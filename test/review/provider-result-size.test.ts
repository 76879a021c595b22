/**
 * What a provider ran itself (a web search) is stored with the model's step, and a user may point
 * their thread at an endpoint of their own (hostile review): a 3 MB result made the step's event a
 * row Cloudflare refuses, and the turn failed on it. Such a result keeps a notice instead.
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { json, messagesOf, stubOf } from "../helpers.js";
import { oversizedWrites } from "../row-limit.js";

it("a provider's 3 MB result of a call it ran keeps a notice; the turn completes, nothing oversized is written", async () => {
  const before = oversizedWrites.length;
  const k = fakeKey("huge-provider-result");
  const urls = Array.from({ length: 30_000 }, (_, i) => `https://example.com/${"p".repeat(90)}/${i}`);
  await scriptFake(k, [{ providerCalls: [{ id: "ws1", query: "q", urls }], text: "done" }]);
  const id = (await json("POST", "/threads", { env: fakeEnv("openai:gpt-4.1-mini", k) })).body.threadId;
  expect((await json("POST", `/threads/${id}/messages`, { content: "hi" })).status).toBe(202);
  await stubOf(id).waitIdle();
  const info = await json("GET", `/threads/${id}`);
  expect(info.body.lastTurn).toMatchObject({ status: "completed" });
  expect(JSON.stringify(await messagesOf(id))).toContain("too large to store with the model's step");
  expect(oversizedWrites.slice(before)).toEqual([]);
});
