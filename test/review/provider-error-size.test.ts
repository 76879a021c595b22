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
