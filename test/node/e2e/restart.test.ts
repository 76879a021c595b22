/**
 * Restarting `wrangler dev` on the same `--persist-to` folder keeps a thread: its metadata,
 * messages, events (replayed over a new WebSocket) and key-value state, and the seq carries on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { call, createThread, range1, startWeft, subscribe, waitIdle, type DevServer, type Frame } from "./support.js";

const stateDir = mkdtempSync(join(tmpdir(), "weft-e2e-restart-"));
let weft: DevServer | undefined;

afterAll(async () => {
  await weft?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** Every frame of a thread so far, through a WebSocket replay from seq 0. */
async function allFrames(base: string, threadId: string, lastSeq: number): Promise<Frame[]> {
  const sub = await subscribe(base, threadId, 0);
  await sub.until((f) => f.length >= lastSeq);
  sub.close();
  return sub.frames;
}

it("keeps the thread, its messages and its events across a restart", async () => {
  weft = await startWeft(stateDir);
  const id = await createThread(weft.url, { userId: "user-42" });
  const posted = await call(weft.url, "POST", `/threads/${id}/messages`, {
    content: "Remember the door code.",
    script: [{ text: "Saving it.", toolCalls: [{ id: "call_save", name: "save_draft", arguments: { title: "door", body: "4711" } }] }, { text: "Saved." }],
  });
  expect(posted.status).toBe(202);
  const before = await waitIdle(weft.url, id);
  const messagesBefore = (await call(weft.url, "GET", `/threads/${id}/messages`)).body;
  const framesBefore = await allFrames(weft.url, id, before.lastSeq);
  const callsBefore = (await call(weft.url, "GET", `/threads/${id}/calls`)).body;
  expect(messagesBefore.total).toBe(4);
  expect(framesBefore.map((f) => f.seq)).toEqual(range1(before.lastSeq));
  expect(callsBefore.calls).toMatchObject([{ callId: "call_save", toolName: "save_draft", status: "succeeded", attempts: 1 }]);

  await weft.stop();
  weft = await startWeft(stateDir);

  const after = await call(weft.url, "GET", `/threads/${id}`);
  expect(after.status).toBe(200);
  expect(after.body).toEqual(before);
  expect((await call(weft.url, "GET", `/threads/${id}/messages`)).body).toEqual(messagesBefore);
  expect(await allFrames(weft.url, id, before.lastSeq)).toEqual(framesBefore);
  expect((await call(weft.url, "GET", `/threads/${id}/calls`)).body).toEqual(callsBefore);

  // The thread goes on: its key-value state is there, the write did not run again, and seq continues.
  const sub = await subscribe(weft.url, id, before.lastSeq);
  const next = await call(weft.url, "POST", `/threads/${id}/messages`, {
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
  const calls = (await call(weft.url, "GET", `/threads/${id}/calls`)).body.calls;
  expect(calls.filter((c: any) => c.toolName === "save_draft")).toHaveLength(1);
});
