/**
 * Hooks of agents/hooks/ (fixtures in test/fixtures/hooks/, active for the `hooked` agent):
 * create-message hooks rewrite and observe stored messages, tool-call hooks see each call, the
 * history hook builds each request from one snapshot, and a hook that throws fails its turn with
 * an error naming it, leaving no half-written message.
 */
import { describe, expect, it } from "vitest";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, inThread, json, runTurn, stubOf } from "../helpers.js";

const kv = (id: string, key: string) =>
  inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../../src/run/state.js");
    return createThreadState(instance.world, undefined, null).getValue<unknown[]>(key);
  });

const messagesOf = async (id: string) =>
  ((await json("GET", `/threads/${id}/messages?limit=100&includeSilent=true`)).body.messages as Array<{ role: string; content: string }>).map(
    (m) => `${m.role}:${m.content}`,
  );

describe("hooks", () => {
  it("before/after_create_message rewrite and observe what the turn stores; tool hooks see each call", async () => {
    const id = await createThread({ agent: "hooked" });
    await runTurn(id, "hello", [{ toolCalls: [{ id: "i1", name: "remember", arguments: { word: "w" } }] }, { text: "done with secret-word" }]);
    expect(await messagesOf(id)).toEqual(["user:hello", "assistant:", "tool:" + JSON.stringify({ before: null, inExecution: true }), "assistant:done with [redacted]"]);
    expect(await kv(id, "created")).toEqual(["user:hello", "assistant:", "tool:" + JSON.stringify({ before: null, inExecution: true }), "assistant:done with [redacted]"]);
    expect(await kv(id, "started")).toEqual(["remember"]);
    expect(await kv(id, "finished")).toEqual(["remember:succeeded"]);
  });

  it("a posted message runs the create-message hooks, at once on a free thread and on admission when it queued", async () => {
    const id = await createThread({ agent: "hooked" });
    const posted = await json("POST", `/threads/${id}/messages`, {
      content: "my secret-word",
      script: [{ toolCalls: [{ id: "w1", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "ok" }],
    });
    expect(posted.status).toBe(202);
    expect(posted.body.message).toMatchObject({ role: "user", content: "my [redacted]" });
    // The turn waits for a person: a message posted now queues, and its hooks run when it joins.
    await stubOf(id).waitIdle();
    const queued = await json("POST", `/threads/${id}/messages`, { content: "second secret-word", script: [{ text: "fine" }] });
    expect(queued.body).toEqual({ queued: true });
    expect(await kv(id, "created")).toEqual(["user:my [redacted]", "assistant:"]);
    await json("POST", `/threads/${id}/calls/w1/deny`, {});
    await stubOf(id).waitIdle();
    const created = (await kv(id, "created")) as string[];
    expect(created).toContain("user:second [redacted]");
    expect(await messagesOf(id)).toContain("user:second [redacted]");
  });

  it("a message a before_create_message hook refuses is not stored: the post answers hook_failed and a failed turn names the hook", async () => {
    const id = await createThread({ agent: "hooked" });
    const posted = await json("POST", `/threads/${id}/messages`, { content: "the forbidden-word", script: [{ text: "never" }] });
    expect(posted.status).toBe(500);
    expect(posted.body.error).toMatchObject({ code: "hook_failed", message: 'hook "before_create_message" threw: the forbidden word may not be stored' });
    expect(await messagesOf(id)).toEqual([]);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "failed", error: 'hook "before_create_message" threw: the forbidden word may not be stored' });
    // The thread stays usable: the next message joins and its turn runs.
    await runTurn(id, "hello again", []);
    expect((await messagesOf(id))[0]).toBe("user:hello again");
    expect(await kv(id, "created")).toEqual(["user:hello again", "assistant:never"]);
  });

  it("a before_create_message replacement keeps weft's metadata keys as the message had them, and one that cannot be stored fails with hook_failed", async () => {
    const id = await createThread({ agent: "hooked" });
    await runTurn(id, "the meta-word", [{ text: "ok" }]);
    const [stored] = (await json("GET", `/threads/${id}/messages?limit=1`)).body.messages;
    expect(stored).toMatchObject({ content: "the meta-word", metadata: { note: "kept" } });
    expect(stored.metadata).not.toHaveProperty("promptCall");
    expect(stored.metadata).not.toHaveProperty("modelSettings");
    const cases = [
      ["huge-meta", /over the 1572864-byte limit/],
      ["lone-word", /not well-formed Unicode/],
      ["bigint-meta", /no JSON form/],
      ["huge-parts", /over the 1048576-byte limit/],
      // A hook that rewrites the text but not the parts (the model is sent the parts): refused, not stored half-changed.
      ["parts-mismatch", /content is not the text of its parts/],
    ] as const;
    for (const [word, why] of cases) {
      const content = word === "parts-mismatch" ? [{ type: "text", text: `a ${word}` }] : `a ${word}`;
      const posted = await json("POST", `/threads/${id}/messages`, { content, script: [{ text: "never" }] });
      expect(posted.body.error.code).toBe("hook_failed");
      expect(posted.body.error.message).toMatch(/^hook "before_create_message" returned a message that cannot be stored: /);
      expect(posted.body.error.message).toMatch(why);
    }
    expect((await messagesOf(id)).filter((m) => m.includes("-meta") || m.includes("lone-word"))).toEqual([]);
  });

  it("a replacement that leaves a large step's tool calls as they are stores it: they count as stored, escaped once", async () => {
    const id = await createThread({ agent: "hooked" });
    // 0.5 MB of arguments as JSON text, 1 MB written inside the row's JSON: a step that fits (found by review).
    const big = { note: '"'.repeat(250_000) };
    const posted = await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ text: "meta-word", toolCalls: [{ id: "g1", name: "record_call", arguments: big }] }, { text: "done" }] });
    expect(posted.status).toBe(202);
    await stubOf(id).waitIdle();
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn.error).toBeUndefined();
    expect(info.lastTurn.status).not.toBe("failed");
  });

  it("a replacement that grows a model step with its tool calls past what one row holds fails the turn with hook_failed, storing nothing of the step", async () => {
    const id = await createThread({ agent: "hooked" });
    const big = { note: "z".repeat(700 * 1024) };
    const posted = await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ text: "grow-word", toolCalls: [{ id: "g1", name: "record_call", arguments: big }] }, { text: "never" }] });
    expect(posted.status).toBe(202);
    await stubOf(id).waitIdle();
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn.status).toBe("failed");
    expect(info.lastTurn.error).toMatch(/^hook "before_create_message" returned a message that cannot be stored: content: \d+ bytes as stored with its parts and tool calls/);
    expect((await messagesOf(id)).filter((m) => m.startsWith("assistant:"))).toEqual([]);
  });

  it("injectMessage runs the create-message hooks and joins the live history", async () => {
    const id = await createThread({ agent: "hooked" });
    const out = await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, undefined, null);
      const message = await state.injectMessage({ role: "system", content: "the secret-word is out" });
      return { message, created: await state.getValue("created") };
    });
    expect(out.message).toMatchObject({ role: "system", content: "the [redacted] is out" });
    expect(out.created).toEqual(["system:the [redacted] is out"]);
  });

  it("the history hook filters one request's messages from one snapshot; a message injected meanwhile enters the next request", async () => {
    const id = await createThread({ agent: "hooked", arguments: { injectDuringFilter: true } });
    await runTurn(id, "[private] my pin is 1234", [{ toolCalls: [{ id: "i1", name: "inspect_execution", arguments: {} }] }, { text: "ok" }]);
    const requests = (await kv(id, "requests")) as string[][];
    const sent = (await kv(id, "sent")) as string[][];
    expect(requests).toHaveLength(2);
    expect(requests[0]).toEqual(["[private] my pin is 1234"]);
    expect(requests[1]).toContain("injected during request 1");
    expect(sent[0]).toEqual([]);
    expect(sent[1]).not.toContain("[private] my pin is 1234");
    // The stored history keeps everything; the hook only shapes requests.
    expect(await messagesOf(id)).toContain("user:[private] my pin is 1234");
  });

  for (const hook of ["before_create_message", "after_create_message", "filter_messages"]) {
    it(`a throwing ${hook} fails the turn with an error naming the hook`, async () => {
      const id = await createThread({ agent: "hooked", arguments: { throwIn: hook } });
      await runTurn(id, "hello", [{ text: "an answer" }]);
      const info = (await json("GET", `/threads/${id}`)).body;
      expect(info.lastTurn).toMatchObject({ status: "failed", error: `hook "${hook}" threw: ${hook} refused on purpose` });
      const stored = await messagesOf(id);
      // before_create_message and filter_messages throw before the answer is written; after_create_message after it was written whole.
      if (hook === "after_create_message") expect(stored).toEqual(["user:hello", "assistant:an answer"]);
      else expect(stored).toEqual(["user:hello"]);
      // The step's record (its usage) is kept once, whether its message was stored or refused; filter_messages throws before the request.
      const steps = await inThread(id, (i) => i.store.turns.latest().modelSteps?.length ?? 0);
      expect(steps).toBe(hook === "filter_messages" ? 0 : 1);
    });
  }

  it("a failed turn is logged to the console, so the author sees it under npm start", async () => {
    const lines: string[] = [];
    const untap = tapLogs((level, args) => lines.push(`${level} ${args.map(String).join(" ")}`));
    try {
      const id = await createThread({ agent: "hooked", arguments: { throwIn: "filter_messages" } });
      await runTurn(id, "hello", [{ text: "an answer" }]);
      const turnId = (await json("GET", `/threads/${id}`)).body.lastTurn.turnId;
      expect(lines).toContain(`error weft: turn ${turnId} of thread ${id} failed: hook "filter_messages" threw: filter_messages refused on purpose`);
    } finally {
      untap();
    }
  });

  it("a throwing tool_call_started records the call failed without running it, and fails the turn", async () => {
    const id = await createThread({ agent: "hooked", arguments: { throwIn: "tool_call_started" } });
    await runTurn(id, "hello", [{ toolCalls: [{ id: "i1", name: "remember", arguments: { word: "w" } }] }, { text: "never" }]);
    const [i1] = await callsOf(id);
    expect(i1).toMatchObject({ status: "failed", result: { status: "error", error: 'hook "tool_call_started" threw: tool_call_started refused on purpose' } });
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "failed", error: 'hook "tool_call_started" threw: tool_call_started refused on purpose' });
    expect(await messagesOf(id)).not.toContain("assistant:never");
  });

  it("a throwing tool_call_finished keeps the call's result and fails the turn", async () => {
    const id = await createThread({ agent: "hooked", arguments: { throwIn: "tool_call_finished" } });
    await runTurn(id, "hello", [{ toolCalls: [{ id: "i1", name: "remember", arguments: { word: "w" } }] }, { text: "never" }]);
    const [i1] = await callsOf(id);
    expect(i1).toMatchObject({ status: "succeeded" });
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "failed", error: 'hook "tool_call_finished" threw: tool_call_finished refused on purpose' });
  });

  it("an agent's own hooks run after the project's: a rewrite sees the project's rewrite, both tool hooks see the call, and the agent's filter drops what it drops", async () => {
    const id = await createThread({ agent: "hooked_too" });
    await runTurn(id, "hello", [{ toolCalls: [{ id: "o1", name: "remember", arguments: { word: "w" } }] }, { text: "done with secret-word" }]);
    expect((await messagesOf(id)).at(-1)).toBe("assistant:done with [REDACTED]");
    expect(await kv(id, "finished")).toEqual(["remember:succeeded", "own:remember:succeeded"]);
  });

  it("an agent's filter_messages runs on what the project's returned: the request the provider gets lacks what either dropped", async () => {
    const key = fakeKey("agent-hooks");
    await scriptFake(key, [{ text: "ok" }]);
    const id = await createThread({ agent: "hooked_too", env: fakeEnv("openai-chat:gpt-4o", key) });
    await json("POST", `/threads/${id}/messages`, { content: "[draft] not for the model" });
    await stubOf(id).waitIdle();
    await scriptFake(key, [{ text: "fine" }]);
    await json("POST", `/threads/${id}/messages`, { content: "[private] nor this" });
    await stubOf(id).waitIdle();
    const bodies = (await fakeRequests(key)).map((r) => JSON.stringify(r.body.messages));
    expect(bodies).toHaveLength(2);
    // The project's filter drops [private], the agent's [draft]; the project's saw the draft first.
    for (const body of bodies) expect(body).not.toMatch(/\[draft\]|\[private\]/);
    expect(((await kv(id, "requests")) as string[][])[0]).toContain("[draft] not for the model");
  });

  it("a throwing agent hook fails the turn naming the agent and the hook", async () => {
    const id = await createThread({ agent: "hooked_too", arguments: { ownThrows: true } });
    await runTurn(id, "hello", [{ toolCalls: [{ id: "o2", name: "remember", arguments: { word: "w" } }] }, { text: "done" }]);
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn).toMatchObject({ status: "failed" });
    expect(turn.error).toContain('agent "hooked_too" hook "tool_call_finished" threw: the agent\'s hook refused');
  });
});

