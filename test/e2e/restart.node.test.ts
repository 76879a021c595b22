/**
 * Restarting `wrangler dev` on the same `--persist-to` folder keeps a thread: its metadata,
 * messages, events (replayed over a new WebSocket) and key-value state, and the seq carries on;
 * and a model step the restart cut while it streamed (from a fake provider served over Node HTTP)
 * is requested again once, and only once. One restart serves both: each start of `wrangler dev`
 * costs seconds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { call, createThread, range1, startWeft, subscribe, waitIdle, type DevServer, type Frame } from "./support.js";

const stateDir = mkdtempSync(join(tmpdir(), "weft-e2e-restart-"));
const fake = createFakeProvider();
let provider: { url: string; close(): Promise<void> } | undefined;
let weft: DevServer | undefined;

afterAll(async () => {
  await weft?.stop();
  await provider?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CUT_KEY = "cut-by-restart";
const requestsCut = () => fake.requests.filter((r) => r.key === CUT_KEY);

/** Every frame of a thread so far, through a WebSocket replay from seq 0. */
async function allFrames(base: string, threadId: string, lastSeq: number): Promise<Frame[]> {
  const sub = await subscribe(base, threadId, 0);
  await sub.until((f) => f.length >= lastSeq);
  sub.close();
  return sub.frames;
}

/** What the kept thread looked like before the restart. */
let kept: { id: string; before: any; messagesBefore: any; framesBefore: Frame[]; callsBefore: any };
/** The thread whose model step the restart cut. */
let cutId: string;

describe("a restart of wrangler dev on the same --persist-to folder", () => {
  beforeAll(async () => {
    [provider, weft] = await Promise.all([serveFakeProvider(fake), startWeft(stateDir)]);
    // A thread at rest, with a write done and key-value state stored.
    const id = await createThread(weft.url, { userId: "user-42" });
    const posted = await call(weft.url, "POST", `/threads/${id}/messages`, {
      content: "Remember the door code.",
      script: [{ text: "Saving it.", toolCalls: [{ id: "call_save", name: "save_draft", arguments: { title: "door", body: "4711" } }] }, { text: "Saved." }],
    });
    expect(posted.status).toBe(202);
    const before = await waitIdle(weft.url, id);
    kept = {
      id,
      before,
      messagesBefore: (await call(weft.url, "GET", `/threads/${id}/messages`)).body,
      framesBefore: await allFrames(weft.url, id, before.lastSeq),
      callsBefore: (await call(weft.url, "GET", `/threads/${id}/calls`)).body,
    };

    // A thread whose model streams slowly: forty pieces, 150 ms apart, so the server stops in the middle of it.
    fake.script(CUT_KEY, [{ text: "x".repeat(160), chunk: 4, delayMs: 150 }, { text: "answered after the restart" }]);
    cutId = await createThread(weft.url, {
      agent: "stepper",
      env: {
        WEFT_MODEL: { value: "openai-compatible:x", type: "text" },
        OPENAI_COMPATIBLE_API_KEY: { value: CUT_KEY, type: "secret" },
        OPENAI_COMPATIBLE_BASE_URL: { value: `${provider.url}/v1`, type: "text" },
      },
    });
    await call(weft.url, "POST", `/threads/${cutId}/messages`, { content: "tell me" });
    for (let i = 0; i < 200 && requestsCut().length === 0; i++) await sleep(25);
    expect(requestsCut()).toHaveLength(1);
    await sleep(300);

    await weft.stop();
    weft = await startWeft(stateDir);
  }, 300_000);

  it("keeps the thread, its messages and its events across a restart", async () => {
    const { id, before, messagesBefore, framesBefore, callsBefore } = kept;
    expect(messagesBefore.total).toBe(4);
    expect(framesBefore.map((f) => f.seq)).toEqual(range1(before.lastSeq));
    expect(callsBefore.calls).toMatchObject([{ callId: "call_save", toolName: "save_draft", status: "succeeded", attempts: 1 }]);

    const after = await call(weft!.url, "GET", `/threads/${id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before);
    expect((await call(weft!.url, "GET", `/threads/${id}/messages`)).body).toEqual(messagesBefore);
    expect(await allFrames(weft!.url, id, before.lastSeq)).toEqual(framesBefore);
    expect((await call(weft!.url, "GET", `/threads/${id}/calls`)).body).toEqual(callsBefore);

    // The thread goes on: its key-value state is there, the write did not run again, and seq continues.
    const sub = await subscribe(weft!.url, id, before.lastSeq);
    const next = await call(weft!.url, "POST", `/threads/${id}/messages`, {
      content: "What was the code?",
      script: [{ text: "Looking.", toolCalls: [{ id: "call_list", name: "list_drafts", arguments: {} }] }, { text: "It is 4711." }],
    });
    expect(next.body).toMatchObject({ queued: false, message: { id: 5 } });
    await sub.until((f) => f.some((e) => e.type === "turn_finished"));
    sub.close();
    expect(sub.frames[0]!.seq).toBe(before.lastSeq + 1);
    expect(sub.frames.map((f) => f.seq)).toEqual(range1(sub.frames.length).map((n) => n + before.lastSeq));
    const listed = sub.frames.find((f) => f.type === "tool_call_finished")!.data;
    expect(JSON.parse(listed.result)).toEqual([{ title: "door", body: "4711" }]);
    const calls = (await call(weft!.url, "GET", `/threads/${id}/calls`)).body.calls;
    expect(calls.filter((c: any) => c.toolName === "save_draft")).toHaveLength(1);
  });

  it("a model step cut by a restart of the server is requested again once, and only once", async () => {
    const base = weft!.url;
    // No client request: the watchdog alarm resumes the turn. Then several requests at once, and
    // another watchdog period, must not request it a third time.
    for (let i = 0; i < 200 && requestsCut().length < 2; i++) await sleep(50);
    await Promise.all([call(base, "GET", `/threads/${cutId}`), call(base, "GET", `/threads/${cutId}/messages`), call(base, "GET", `/threads/${cutId}`)]);
    const info = await waitIdle(base, cutId, 30_000);
    await sleep(2500);
    expect(requestsCut()).toHaveLength(2);
    expect(info.lastTurn).toMatchObject({ status: "completed" });
    const messages = (await call(base, "GET", `/threads/${cutId}/messages`)).body.messages;
    // Nothing of the cut stream was stored: one answer, from the request after the restart.
    expect(messages.map((m: any) => m.content)).toEqual(["tell me", "answered after the restart"]);
  });
});
