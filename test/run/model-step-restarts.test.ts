/**
 * Turns that restarts cut: a model step cut again and again ends its turn with a coded error
 * instead of asking the provider forever, and a side forced with `forceTurn` survives a restart.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FAKE_BASE, fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, eventsOf, inThread, json, messagesOf, rawStub, stubOf, until } from "../helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A slow stream: 100 pieces, 60 ms apart, so a restart lands in the middle of it even under load. */
const slow = (text: string) => ({ text: text.repeat(400), chunk: 4, delayMs: 60 });

/** Restarts the thread's object (a real `ctx.abort()`) once the fake got `n` requests for `key`. */
async function restartAt(id: string, key: string, n: number) {
  await until(async () => (await fakeRequests(key)).length >= n, `request ${n}`);
  await sleep(60);
  await inThread(id, (instance) => instance.ctx.abort("restart mid-stream")).catch(() => undefined);
}

/** Waits until the thread's latest turn left `running` (the restarted object resumes it by itself). */
async function settled(id: string) {
  await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status !== "running", "the turn to end");
  await stubOf(id).waitIdle();
}

describe("a model step cut by restarts", () => {
  it("is requested again once after a restart, and the turn completes with only the second answer stored", async () => {
    const key = fakeKey("restart");
    await scriptFake(key, [slow("x"), { text: "second answer" }]);
    const id = await createThread({ agent: "stepper", env: fakeEnv("openai-compatible:x", key) });
    await json("POST", `/threads/${id}/messages`, { content: "go" });
    await restartAt(id, key, 1);
    await settled(id);
    expect(await fakeRequests(key)).toHaveLength(2);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("completed");
    expect((await messagesOf(id)).map((m) => m.content)).toEqual(["go", "second answer"]);
  });

  it("cut again on its second request, ends the turn failed with code restart_loop, and the thread takes the next message", async () => {
    const key = fakeKey("restart-twice");
    await scriptFake(key, [slow("x"), slow("y"), { text: "answer to the next message" }]);
    const id = await createThread({ agent: "stepper", env: fakeEnv("openai-compatible:x", key) });
    await json("POST", `/threads/${id}/messages`, { content: "go" });
    await restartAt(id, key, 1);
    await restartAt(id, key, 2);
    await settled(id);
    // The watchdog finds nothing left to do, and asks no third time.
    await runDurableObjectAlarm(rawStub(id));
    expect(await fakeRequests(key)).toHaveLength(2);
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn).toMatchObject({ status: "failed", errorCode: "restart_loop", steps: 0 });
    expect(turn.error).toBe("model step 1 was cut by a restart 2 times; it is not requested again");
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished").map((e) => e.data);
    expect(finished).toEqual([expect.objectContaining({ status: "failed", errorCode: "restart_loop" })]);
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user"]);

    // The thread is usable again: the next message gets its own turn and answer.
    expect((await json("POST", `/threads/${id}/messages`, { content: "again" })).status).toBe(202);
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed" });
    expect((await messagesOf(id)).map((m) => m.content)).toEqual(["go", "again", "answer to the next message"]);
  });
});

describe("a model step whose preparation restarts cut", () => {
  it("counts a cut inside history compaction as a cut of the step: twice, and the turn ends restart_loop without a third summary request", async () => {
    const main = fakeKey("main");
    const summarizer = fakeKey("sum");
    await scriptFake(summarizer, [slow("s"), slow("t"), ...Array.from({ length: 8 }, (_, i) => ({ text: `summary v${i + 1}` }))]);
    await scriptFake(main, [{ text: "answer" }]);
    const id = await createThread({
      agent: "summarized",
      env: { ...fakeEnv("openai-compatible:x", main), ANTHROPIC_API_KEY: { value: summarizer, type: "secret" }, ANTHROPIC_BASE_URL: { value: FAKE_BASE, type: "text" } },
    });
    // Older messages than the 2000-token window holds, so the first step compacts them first.
    await inThread(id, (instance) =>
      instance.store.atomically(() => {
        for (let i = 0; i < 30; i++) instance.store.messages.append({ role: i % 2 ? "assistant" : "user", content: `chatter ${i} `.padEnd(400, ".") });
      }),
    );
    await json("POST", `/threads/${id}/messages`, { content: "what next?" });
    await restartAt(id, summarizer, 1);
    await restartAt(id, summarizer, 2);
    await settled(id);
    expect(await fakeRequests(summarizer)).toHaveLength(2);
    expect(await fakeRequests(main)).toHaveLength(0);
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "failed", errorCode: "restart_loop" });
  });
});

describe("forceTurn across a restart", () => {
  it("a side forced in a step whose call waits for approval takes the next step, even after the thread restarted", async () => {
    const id = await createThread({ agent: "force_desk" });
    const script = [
      { toolCalls: [{ id: "f1", name: "inspect_execution", arguments: { forceTurn: "b" } }, { id: "pay", name: "needs_ok", arguments: { amount: 500 } }] },
      { text: "t1" },
      { text: "t2" },
      { toolCalls: [{ id: "end", name: "resolve_chat", arguments: {} }] },
    ];
    expect((await json("POST", `/threads/${id}/messages`, { content: "Hello", script })).status).toBe(202);
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.lastTurn.status).toBe("waiting");
    await inThread(id, (instance) => instance.ctx.abort("restart while waiting")).catch(() => undefined);
    expect((await json("POST", `/threads/${id}/calls/pay/approve`, {})).status).toBe(200);
    await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status === "stopped", "the turn to end");
    const messages = (await json("GET", `/threads/${id}/messages?limit=100`)).body.messages as Array<{ role: string; content: string; side?: string }>;
    // Side b answers right after side a's step, as forced; without the forced side kept, side a would.
    expect(messages.filter((m) => m.role === "assistant").map((m) => `${m.side}:${m.content}`)).toEqual(["a:", "b:t1", "a:t2", "b:"]);
  });
});
