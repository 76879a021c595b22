/**
 * Frames a thread stored right before its removal ended (the finish of the call the DELETE waited
 * for, custom events) reach an open subscriber before its socket closes (found by hostile review
 * 20a: with a 0 ms timer for the fan-out, the removal closed the sockets first).
 */
import { expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { createThread, inThread, json, request } from "../helpers.js";
import { untilStarted } from "../removal-helpers.js";

async function watch(id: string) {
  const res = await request(`/threads/${id}/ws?since=0`, { headers: { Upgrade: "websocket" } });
  const ws = res.webSocket!;
  ws.accept();
  const frames: EventFrame[] = [];
  const state = { closed: null as string | null };
  ws.addEventListener("message", (e) => void frames.push(JSON.parse(e.data as string) as EventFrame));
  ws.addEventListener("close", (e) => void (state.closed = `${e.code} ${e.reason}`));
  return { frames, state };
}

it("the finish of the call a DELETE waited for reaches the subscriber before the socket closes", async () => {
  const id = await createThread({ agent: "deletable" });
  const sub = await watch(id);
  const call = json("POST", "/v1/tools/slow_write", { input: { ms: 300 }, sessionId: id });
  await untilStarted(id, 1);
  expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
  expect((await call).status).toBe(200);
  await new Promise((r) => setTimeout(r, 500));
  expect({ types: sub.frames.map((f) => f.type), closed: sub.state.closed }).toMatchObject({ types: expect.arrayContaining(["tool_call_started", "tool_call_finished"]), closed: "1000 thread deleted" });
}, 60_000);

it("custom events stored right before a removal reach the open socket before it closes", async () => {
  const id = await createThread({ agent: "guarantees" });
  const sub = await watch(id);
  await new Promise((r) => setTimeout(r, 200));
  await inThread(id, async (t) => {
    for (let i = 0; i < 3; i++) t.world.emitCustom("custom.last", { i });
    t.events.lastSeq();
    await t.removeAll();
  });
  await new Promise((r) => setTimeout(r, 500));
  expect({ seqs: sub.frames.map((f) => f.seq), closed: sub.state.closed }).toEqual({ seqs: [1, 2, 3, 4], closed: "1000 thread deleted" });
});
