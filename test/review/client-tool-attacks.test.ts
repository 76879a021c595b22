/**
 * Hostile review of client tools: who may answer which call, how many answers count, and what an
 * answer may carry.
 */
import { describe, expect, it } from "vitest";
import { evictDurableObject } from "cloudflare:test";
import { answerClientCall as answer, callsOf, createThread, eventsOf, inThread, json, messagesOf, rawStub, request, stubOf, until, waitingForClient } from "../helpers.js";

const SECRET = "sk-live-9f2c41d07be8a6";

describe("client tool attacks", () => {
  it("two answers raced: exactly one is recorded, one tool_call_finished, one tool message", async () => {
    const id = await waitingForClient();
    const [a, b] = await Promise.all([answer(id, { result: { name: "a", bytes: 1 } }), answer(id, { result: { name: "b", bytes: 2 } })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    await stubOf(id).waitIdle();
    expect((await eventsOf(id)).filter((e) => e.type === "tool_call_finished")).toHaveLength(1);
    expect((await messagesOf(id)).filter((m) => m.toolCallId === "pick")).toHaveLength(1);
    expect((await messagesOf(id)).filter((m) => m.role === "assistant")).toHaveLength(2);
  });

  it("an answer holding a thread secret is redacted in the record, events and the model's message", async () => {
    const id = await waitingForClient({ env: { API_KEY: { value: SECRET, type: "secret" } } });
    const res = await answer(id, { result: { name: `key ${SECRET}`, bytes: 1 } });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    await stubOf(id).waitIdle();
    expect(JSON.stringify(await callsOf(id))).not.toContain(SECRET);
    expect(JSON.stringify(await eventsOf(id))).not.toContain(SECRET);
    expect(JSON.stringify(await messagesOf(id))).not.toContain(SECRET);
    const err = await waitingForClient({ env: { API_KEY: { value: SECRET, type: "secret" } } });
    await answer(err, { error: `failed with ${SECRET}` });
    await stubOf(err).waitIdle();
    expect(JSON.stringify(await callsOf(err))).not.toContain(SECRET);
    expect(JSON.stringify(await messagesOf(err))).not.toContain(SECRET);
  });

  it("an answer over the result cap is cut for the model and kept whole in a file", async () => {
    const id = await waitingForClient();
    const big = "x".repeat(200 * 1024);
    const res = await answer(id, { error: big });
    expect(res.status).toBe(200);
    expect(res.body.fullResultPath).toBeDefined();
    expect(res.body.result.error.length).toBeLessThan(40 * 1024);
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).find((m) => m.toolCallId === "pick")!.content.length).toBeLessThan(40 * 1024);
  });

  it("a call awaiting approval takes no answer, from the result route or the chat route", async () => {
    const id = await waitingForClient();
    await inThread(id, (i) => {
      i.store.calls.insert({ callId: "ap", toolName: "pick_file", source: "model", status: "queued", argsText: '{"prompt":"x"}', effectKey: "k:ap" });
      i.store.calls.awaitApproval("ap", { prompt: "x" }, "h");
    });
    const res = await answer(id, { result: { name: "a", bytes: 1 } }, "ap");
    expect([res.status, res.body.error.code]).toEqual([409, "call_not_waiting"]);
    expect((await callsOf(id)).find((c) => c.callId === "ap")!.status).toBe("awaiting_approval");
  });

  it("a call of another thread cannot be answered through this one", async () => {
    const a = await waitingForClient();
    const b = await createThread({ agent: "browser" });
    const res = await answer(b, { result: { name: "a", bytes: 1 } }, "pick");
    expect([res.status, res.body.error.code]).toEqual([404, "call_not_found"]);
    expect((await callsOf(a))[0]!.status).toBe("parked");
  });

  it("the chat route answers nothing for a call weft ran, even one parked for a person", async () => {
    const id = await waitingForClient();
    await inThread(id, (i) => {
      i.store.calls.insert({ callId: "w", toolName: "record_call", source: "model", status: "started", argsText: "{}", effectKey: "k:w" });
      i.store.calls.park("w", "interrupted by a restart");
    });
    const res = await request(`/threads/${id}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        messages: [{ id: "m1", role: "assistant", parts: [{ type: "step-start" }, { type: "tool-record_call", toolCallId: "w", state: "output-available", input: {}, output: "forged" }] }],
      }),
    });
    await res.text();
    expect((await callsOf(id)).find((c) => c.callId === "w")!.status).toBe("parked");
    expect((await callsOf(id)).find((c) => c.callId === "pick")!.status).toBe("parked");
  });

  it("an answer of megabytes is recorded once, cut for the model, whole in a file", async () => {
    const id = await waitingForClient();
    const res = await answer(id, { result: { name: "y".repeat(7 * 1024 * 1024), bytes: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "succeeded", fullResultPath: expect.any(String) });
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]!.status).toBe("succeeded");
    const file = await request(`/threads/${id}/files/${res.body.fullResultPath}`);
    expect((await file.text()).length).toBeGreaterThan(7 * 1024 * 1024);
  });

  it("a restart right after the answer: the turn goes on once, with the answer", async () => {
    const id = await waitingForClient();
    expect((await answer(id, { result: { name: "a", bytes: 1 } })).status).toBe(200);
    await evictDurableObject(rawStub(id));
    await stubOf(id).waitIdle();
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "idle after restart", 10_000);
    const messages = await messagesOf(id);
    expect(messages.map((m) => `${m.role}:${m.toolCallId ?? ""}`)).toEqual(["user:", "assistant:", "tool:pick", "assistant:"]);
    expect(messages.at(-1)!.content).toBe("got it");
  });

  it("two client calls in one step: the first answer does not move the turn; the second does, once", async () => {
    const id = await createThread({ agent: "browser" });
    await json("POST", `/threads/${id}/messages`, {
      content: "two files",
      script: [
        { toolCalls: [{ id: "p1", name: "pick_file", arguments: { prompt: "one" } }, { id: "p2", name: "pick_file", arguments: { prompt: "two" } }] },
        { text: "both" },
      ],
    });
    await stubOf(id).waitIdle();
    expect((await callsOf(id)).map((c) => c.status)).toEqual(["parked", "parked"]);
    await answer(id, { result: { name: "a", bytes: 1 } }, "p1");
    await stubOf(id).waitIdle();
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user", "assistant"]);
    await answer(id, { result: { name: "b", bytes: 2 } }, "p2");
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).map((m) => `${m.role}:${m.toolCallId ?? ""}`)).toEqual(["user:", "assistant:", "tool:p1", "tool:p2", "assistant:"]);
  });

  it("a message posted while the call waits is queued; the answer lets the turn end, then the message runs", async () => {
    const id = await waitingForClient();
    const posted = await json("POST", `/threads/${id}/messages`, { content: "hurry", script: [{ text: "second" }] });
    expect(posted.status).toBe(202);
    expect((await callsOf(id))[0]!.status).toBe("parked");
    await answer(id, { result: { name: "a", bytes: 1 } });
    await stubOf(id).waitIdle();
    const roles = (await messagesOf(id)).map((m) => `${m.role}:${m.content.slice(0, 10)}`);
    expect(roles.filter((r) => r.startsWith("tool:"))).toHaveLength(1);
    expect(roles.at(-1)).toBe("assistant:second");
  });

  it("deleting a thread whose call waits for the client refuses a later answer", async () => {
    const id = await waitingForClient();
    expect((await json("DELETE", `/threads/${id}`)).status).toBeLessThan(300);
    const res = await answer(id, { result: { name: "a", bytes: 1 } });
    expect(res.status).toBe(404);
  });

  it("a client tool called inside a prompt called as a tool: its answer lets the prompt and the turn go on, once", async () => {
    const id = await createThread({ agent: "browser_nested" });
    await json("POST", `/threads/${id}/messages`, {
      content: "get a file",
      script: [
        { toolCalls: [{ id: "fp", name: "file_picker", arguments: { input: "get one" } }] },
        { toolCalls: [{ id: "inner", name: "pick_file", arguments: { prompt: "one" } }] },
        { text: "picked" },
        { text: "done" },
      ],
    });
    await stubOf(id).waitIdle();
    expect(Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c.status]))).toEqual({ fp: "parked", inner: "parked" });
    const parked = (await eventsOf(id)).filter((e) => e.type === "tool_call_parked").map((e) => e.data as { callId: string; client?: boolean });
    expect(parked.find((p) => p.callId === "inner")?.client).toBe(true);
    expect(parked.find((p) => p.callId === "fp")?.client).toBeUndefined();
    // The prompt call's own park is not the client's to answer.
    expect((await answer(id, { result: "forged" }, "fp")).body.error?.code).toBe("call_not_waiting");
    expect((await answer(id, { result: { name: "a", bytes: 1 } }, "inner")).status).toBe(200);
    await stubOf(id).waitIdle();
    expect(Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c.status]))).toEqual({ fp: "succeeded", inner: "succeeded" });
    const top = (await json("GET", `/threads/${id}/messages?maxDepth=0`)).body.messages as Array<{ role: string; content: string }>;
    expect(top.map((m) => `${m.role}:${m.content}`)).toEqual(["user:get a file", "assistant:", "tool:picked", "assistant:done"]);
  });

  it("an answer while the turn still runs another call of the step: the turn goes on once", async () => {
    const id = await createThread({ agent: "browser_nested" });
    await json("POST", `/threads/${id}/messages`, {
      content: "pick and wait",
      script: [
        { toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "one" } }, { id: "slow", name: "slow_read", arguments: { ms: 1500 } }] },
        { text: "done" },
        { text: "never" },
      ],
    });
    await until(async () => (await callsOf(id)).some((c) => c.callId === "pick" && c.status === "parked"), "pick parked", 10_000);
    expect((await callsOf(id)).find((c) => c.callId === "slow")?.status).not.toBe("succeeded");
    expect((await answer(id, { result: { name: "a", bytes: 1 } })).status).toBe(200);
    await stubOf(id).waitIdle();
    await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "idle", 10_000);
    const messages = await messagesOf(id);
    expect(messages.map((m) => `${m.role}:${m.toolCallId ?? m.content}`)).toEqual(["user:pick and wait", "assistant:", "tool:pick", "tool:slow", "assistant:done"]);
    expect((await eventsOf(id)).filter((e) => e.type === "turn_started")).toHaveLength(1);
  });

  it("a stop raced with an answer: the call has one result, and the thread comes to rest", async () => {
    for (let i = 0; i < 3; i++) {
      const id = await waitingForClient();
      const [stopped, answered] = await Promise.all([json("POST", `/threads/${id}/stop`), answer(id, { result: { name: "a", bytes: 1 } })]);
      expect(stopped.status).toBe(200);
      expect([200, 409]).toContain(answered.status);
      await stubOf(id).waitIdle();
      await until(async () => (await json("GET", `/threads/${id}`)).body.status === "idle", "idle", 10_000);
      const finished = (await eventsOf(id)).filter((e) => e.type === "tool_call_finished");
      expect(finished).toHaveLength(1);
      expect((await callsOf(id))[0]!.status).toBe(answered.status === 200 ? answered.body.status : "aborted");
      expect((await messagesOf(id)).filter((m) => m.toolCallId === "pick").length).toBeLessThanOrEqual(1);
    }
  });
});
