import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "./fake-provider.js";
import { createThread, inThread, json, messagesOf, rawStub, stubOf } from "./helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A slow stream: 100 pieces, 60 ms apart, so a restart lands in the middle of it even under load. */
const slow = (text: string) => ({ text: text.repeat(400), chunk: 4, delayMs: 60 });

/** Restarts the thread's object (a real `ctx.abort()`) once the fake got `n` requests for `key`. */
async function restartAt(id: string, key: string, n: number) {
  await until(async () => (await fakeRequests(key)).length >= n, `request ${n}`);
  await sleep(60);
  await inThread(id, (instance) => instance.ctx.abort("restart mid-stream")).catch(() => undefined);
  await sleep(20);
  // No client request resumes it: the watchdog alarm does (run now rather than waited for).
  await runDurableObjectAlarm(rawStub(id));
}

describe("a model step cut by a restart", () => {
  it("is requested again once, and the turn completes with only the second answer stored", async () => {
    const key = fakeKey("restart");
    await scriptFake(key, [slow("x"), { text: "second answer" }]);
    const id = await createThread({ agent: "stepper", env: fakeEnv("openai-compatible:x", key) });
    await json("POST", `/threads/${id}/messages`, { content: "go" });
    await restartAt(id, key, 1);
    await stubOf(id).waitIdle();
    await runDurableObjectAlarm(rawStub(id));
    await stubOf(id).waitIdle();
    expect(await fakeRequests(key)).toHaveLength(2);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
    expect((await messagesOf(id)).map((m) => m.content)).toEqual(["go", "second answer"]);
  });

  it("cut again on its second request, ends the turn failed instead of asking a third time", async () => {
    const key = fakeKey("restart-twice");
    await scriptFake(key, [slow("x"), slow("y"), { text: "never asked" }]);
    const id = await createThread({ agent: "stepper", env: fakeEnv("openai-compatible:x", key) });
    await json("POST", `/threads/${id}/messages`, { content: "go" });
    await restartAt(id, key, 1);
    await restartAt(id, key, 2);
    await stubOf(id).waitIdle();
    await runDurableObjectAlarm(rawStub(id));
    await stubOf(id).waitIdle();
    expect(await fakeRequests(key)).toHaveLength(2);
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn.status).toBe("failed");
    expect(turn.error).toMatch(/model step 1 was cut by a restart twice/);
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user"]);
  });
});
