/**
 * A model provider's error message becomes the turn's error, and a user may name the endpoint
 * (their thread's or account's base URL), so its size is theirs to choose (hostile review): a
 * 400 whose message was 3 MB made the turn's ending a 3 MB row, which Cloudflare refuses; the
 * turn stayed `running` for good, the thread with it. The error is kept redacted and cut.
 */
import { expect, it } from "vitest";
import { fakeEnv, fakeKey, scriptFake } from "../fake-provider.js";
import { eventsOf, json, stubOf } from "../helpers.js";
import { oversizedWrites } from "../row-limit.js";

for (const status of [400, 500]) {
  it(`a provider's ${status} with a 3 MB message fails the turn with its error cut; the thread goes on`, async () => {
    const before = oversizedWrites.length;
    const k = fakeKey(`huge-error-${status}`);
    const secret = "sk-canary-provider-error-0123456789";
    // The secret straddles the cut: nothing of it may show.
    const message = "E".repeat(16 * 1024 - 10) + secret + "E".repeat(3_000_000);
    await scriptFake(k, Array.from({ length: 6 }, () => ({ error: { status, message } })));
    const created = await json("POST", "/threads", { env: { ...fakeEnv("openai-compatible:m", k), CANARY: secret } });
    const id = created.body.threadId;
    expect((await json("POST", `/threads/${id}/messages`, { content: "hi" })).status).toBe(202);
    await stubOf(id).waitIdle();
    const info = await json("GET", `/threads/${id}`);
    expect(info.body.status).toBe("idle");
    expect(info.body.lastTurn.status).toBe("failed");
    expect(info.body.lastTurn.error.length).toBeLessThan(20_000);
    const text = JSON.stringify(info.body) + JSON.stringify(await eventsOf(id));
    expect(text).not.toContain("sk-canary");
    expect(oversizedWrites.slice(before)).toEqual([]);
  });
}

/** What the thread showed and kept of a provider failure: its events and its state, secrets in them checked. */
async function shown(id: string): Promise<string> {
  return JSON.stringify((await json("GET", `/threads/${id}`)).body) + JSON.stringify(await eventsOf(id));
}

it("a provider's 3 MB 429 that a retry outlives is kept cut in the step's retries; the turn completes", async () => {
  const before = oversizedWrites.length;
  const k = fakeKey("huge-retry");
  const secret = "sk-canary-provider-retry-0123456789";
  const message = "E".repeat(16 * 1024 - 10) + secret + "E".repeat(3_000_000);
  await scriptFake(k, [{ error: { status: 429, message, retryAfter: "0" } }, { text: "ok" }]);
  const id = (await json("POST", "/threads", { env: { ...fakeEnv("openai-compatible:m", k), CANARY: secret } })).body.threadId;
  expect((await json("POST", `/threads/${id}/messages`, { content: "hi" })).status).toBe(202);
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
  const step = (await eventsOf(id)).find((f) => f.type === "model_step")!.data as { retries?: string[] };
  expect(step.retries).toHaveLength(1);
  expect(step.retries![0]!.length).toBeLessThan(20_000);
  expect(await shown(id)).not.toContain("sk-canary");
  expect(oversizedWrites.slice(before)).toEqual([]);
});

it("a stream cut by a provider's 3 MB malformed chunk, asked again: model_step_discarded's reason is kept cut", async () => {
  const before = oversizedWrites.length;
  const k = fakeKey("huge-discard");
  const secret = "sk-canary-provider-discard-0123456789";
  const malformedText = "{" + "E".repeat(16 * 1024 - 40) + secret + "E".repeat(3_000_000);
  // Paced over more than the 100 ms window, so some delta goes out before the cut (stream-ends.test.ts).
  await scriptFake(k, [{ text: "a partial answer that streams", chunk: 4, delayMs: 100, malformedAfterEvents: 6, malformedText }, { text: "ok" }]);
  const id = (await json("POST", "/threads", { env: { ...fakeEnv("openai-compatible:m", k), CANARY: secret } })).body.threadId;
  expect((await json("POST", `/threads/${id}/messages`, { content: "hi" })).status).toBe(202);
  await stubOf(id).waitIdle();
  expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
  const events = await eventsOf(id);
  const discarded = events.filter((f) => f.type === "model_step_discarded").map((f) => f.data as { reason: string });
  expect(discarded).toHaveLength(1);
  expect(discarded[0]!.reason.length).toBeLessThan(20_000);
  expect(await shown(id)).not.toContain("sk-canary");
  expect(oversizedWrites.slice(before)).toEqual([]);
});
