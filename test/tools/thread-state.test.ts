import { describe, expect, it } from "vitest";
import type { ThreadState } from "../../src/tools/thread-state.js";
import { callsOf, createThread, inThread, json, runTurn, stubOf } from "../helpers.js";

/** Runs `fn` with a ThreadState of a fresh thread, inside its Durable Object. */
async function withState<T>(body: Record<string, unknown>, fn: (state: ThreadState, instance: any) => Promise<T>): Promise<T> {
  const id = await createThread(body);
  return inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../../src/run/state.js");
    return fn(createThreadState(instance.world, undefined, null), instance);
  });
}

describe("ThreadState", () => {
  it("exposes identity, arguments and a null execution at rest", async () => {
    const out = await withState({ arguments: { orderId: "o-1" }, userId: "u-7" }, async (state) => ({
      threadId: state.threadId,
      agentId: state.agentId,
      userId: state.userId,
      args: state.arguments,
      execution: state.execution,
      createdAt: typeof state.createdAt,
    }));
    // The owner is the verified caller; a userId in the body is ignored.
    expect(out).toMatchObject({ agentId: "default", userId: "tester", args: { orderId: "o-1" }, execution: null, createdAt: "number" });
    expect(out.threadId).toMatch(/^[0-9a-f]{64}$/);
  });

  it("pages messages with limit, offset, order and includeSilent", async () => {
    const out = await withState({}, async (state) => {
      for (let i = 1; i <= 5; i++) await state.injectMessage({ role: "user", content: `m${i}` });
      await state.injectMessage({ role: "system", content: "hidden", silent: true, metadata: { k: 1 } });
      const asc = await state.getMessages({ limit: 2, offset: 1 });
      const desc = await state.getMessages({ limit: 3, order: "desc" });
      const silent = await state.getMessages({ limit: 10, order: "desc", includeSilent: true });
      return { asc, desc, silent };
    });
    expect(out.asc.messages.map((m) => m.content)).toEqual(["m2", "m3"]);
    expect(out.asc).toMatchObject({ total: 5, hasMore: true });
    expect(out.desc.messages.map((m) => m.content)).toEqual(["m5", "m4", "m3"]);
    expect(out.silent.total).toBe(6);
    expect(out.silent.hasMore).toBe(false);
    expect(out.silent.messages[0]).toMatchObject({ content: "hidden", silent: true, metadata: { k: 1 } });
  });

  it("injectMessage refuses metadata it cannot store as given, with a code and the path, and stores nothing", async () => {
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 100; i++) node = node.next = {};
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: Array<[string, unknown, string?]> = [
      ["array", [1, 2]],
      ["not an object", "text"],
      ["bigint", { n: 1n }],
      ["cycle", cyclic],
      ["toJSON to a string", { toJSON: () => "x" }],
      ["too deep", deep],
      ["lone surrogate", { k: "\ud800" }],
      ["weft's key promptCall", { promptCall: "c1" }],
      ["weft's key queued", { queued: true }],
      ["weft's key modelSettings", { modelSettings: { temperature: 0 } }],
      ["over the limit with the content", { blob: "x".repeat(600 * 1024) }, "y".repeat(600 * 1024)],
    ];
    const out = await withState({}, async (state) => {
      const seen: Record<string, string> = {};
      for (const [name, metadata, content] of cases) {
        try {
          await state.injectMessage({ role: "user", content: content ?? "hi", metadata: metadata as Record<string, unknown> });
          seen[name] = "stored";
        } catch (e) {
          seen[name] = `${(e as any).code} ${JSON.stringify((e as any).details?.path)}`;
        }
      }
      try {
        await state.injectMessage({ role: "user", content: "a\ud800b" });
        seen.loneContent = "stored";
      } catch (e) {
        seen.loneContent = `${(e as any).code} ${JSON.stringify((e as any).details?.path)}`;
      }
      try {
        await state.injectMessage({ role: "user", content: "hi", silent: "yes" as unknown as boolean });
        seen.silent = "stored";
      } catch (e) {
        seen.silent = `${(e as any).code} ${JSON.stringify((e as any).details?.path)}`;
      }
      // What is checked is what is stored: a getter cannot answer one thing to the check and another to the row.
      let reads = 0;
      const shifty = { get metadata() { return ++reads === 1 ? { ok: 1 } : { promptCall: "c1" }; } };
      seen.getter = JSON.stringify((await state.injectMessage(Object.defineProperties({ role: "user", content: "g" }, Object.getOwnPropertyDescriptors(shifty)) as never)).metadata);
      // A Date is stored as its JSON text, as a later read returns it.
      const dated = await state.injectMessage({ role: "user", content: "dated", metadata: { at: new Date(0), gone: undefined } });
      // null, like no metadata, stores none (a plain-JS tool may pass it).
      const none = await state.injectMessage({ role: "user", content: "none", metadata: null as never });
      return { seen, dated: dated.metadata, none: none.metadata ?? "none", total: (await state.getMessages({ includeSilent: true })).total };
    });
    expect(out.seen).toEqual({
      array: 'invalid_request ["metadata"]',
      "not an object": 'invalid_request ["metadata"]',
      bigint: 'invalid_request ["metadata"]',
      cycle: 'invalid_request ["metadata"]',
      "toJSON to a string": 'invalid_request ["metadata"]',
      "too deep": expect.stringMatching(/^invalid_request \["metadata","next",/),
      "lone surrogate": 'invalid_request ["metadata","k"]',
      "weft's key promptCall": 'invalid_request ["metadata","promptCall"]',
      "weft's key queued": 'invalid_request ["metadata","queued"]',
      "weft's key modelSettings": 'invalid_request ["metadata","modelSettings"]',
      "over the limit with the content": 'payload_too_large ["metadata"]',
      silent: 'invalid_request ["silent"]',
      loneContent: 'invalid_request ["content"]',
      getter: '{"ok":1}',
    });
    expect(out.dated).toEqual({ at: "1970-01-01T00:00:00.000Z" });
    expect(out.none).toBe("none");
    expect(out.total).toBe(3);
  });

  it("refuses a bad page with a code and the offending option", async () => {
    const code = await withState({}, async (state) => {
      try {
        await state.getMessages({ limit: -1 });
        return "accepted";
      } catch (e) {
        return `${(e as any).code} ${JSON.stringify((e as any).details)}`;
      }
    });
    expect(code).toBe('invalid_request {"path":["limit"]}');
  });

  it("refuses a page size over the largest with the same rule and words as GET /threads/:id/messages", async () => {
    const messages = await withState({}, async (state) => {
      const out: string[] = [];
      for (const limit of [0, 1001, 2.5]) {
        try {
          await state.getMessages({ limit });
          out.push("accepted");
        } catch (e) {
          out.push(`${(e as any).code} ${(e as Error).message}`);
        }
      }
      return out;
    });
    expect(messages).toEqual([
      "invalid_request limit: expected a page size from 1 to 1000 (default 100), got 0",
      "invalid_request limit: expected a page size from 1 to 1000 (default 100), got 1001",
      "invalid_request limit: expected a page size from 1 to 1000 (default 100), got 2.5",
    ]);
  });

  it("stores JSON values one row per key, chunking a value over the 2 MB row limit", async () => {
    const big = "é".repeat(3 * 1024 * 1024); // 3 Mi characters, 6 MB of UTF-8
    const out = await withState({}, async (state, instance) => {
      await state.setValue("small", { a: [1, 2] });
      await state.setValue("big", { big });
      const back = await state.getValue<{ big: string }>("big");
      const chunks = instance.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM kv WHERE key = 'big'").one().n;
      await state.setValue("big", "now small");
      const after = instance.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM kv WHERE key = 'big'").one().n;
      return { small: await state.getValue("small"), same: back?.big === big, chunks, after, missing: await state.getValue("nope") };
    });
    expect(out).toEqual({ small: { a: [1, 2] }, same: true, chunks: 7, after: 1, missing: null });
  });

  it("resolves env from the thread, then the agent, then the Worker; secret by default", async () => {
    const out = await withState({ env: { PLAIN: { value: "p", type: "text" }, HIDDEN: "s" } }, async (state) => {
      const before = [await state.env("PLAIN"), await state.envType("PLAIN"), await state.env("HIDDEN"), await state.envType("HIDDEN")];
      const worker = [await state.env("WEFT_EXAMPLE_GREETING"), await state.envType("WEFT_EXAMPLE_GREETING")];
      await state.setEnv("PLAIN", "p2");
      await state.setEnv("NEW", "n");
      const after = [await state.env("PLAIN"), await state.envType("PLAIN"), await state.envType("NEW")];
      let missing = "";
      try {
        await state.env("ABSENT");
      } catch (e) {
        missing = (e as any).code;
      }
      return { before, worker, after, missing };
    });
    expect(out).toEqual({
      before: ["p", "text", "s", "secret"],
      worker: ["hello from weft", "secret"],
      after: ["p2", "text", "secret"],
      missing: "env_not_found",
    });
  });

  it("injectMessage persists the message and emits message_created", async () => {
    const out = await withState({}, async (state, instance) => {
      const message = await state.injectMessage({ role: "system", content: "ctx" });
      const events = instance.store.events.since(0).map((e: { type: string }) => e.type);
      return { message, events };
    });
    expect(out.message).toMatchObject({ id: 1, role: "system", content: "ctx", silent: false });
    expect(out.events).toEqual(["thread_created", "message_created"]);
  });
});

describe("ThreadState.context and execution", () => {
  it("shares context between the calls of one turn, and starts empty in the next turn and at rest", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "one", [{ toolCalls: [{ id: "a", name: "remember", arguments: { word: "x" } }] }, { toolCalls: [{ id: "b", name: "remember", arguments: { word: "y" } }] }]);
    await runTurn(id, "two", [{ toolCalls: [{ id: "c", name: "remember", arguments: { word: "z" } }] }]);
    const direct = await json("POST", "/v1/tools/remember", { input: { word: "w" }, sessionId: id });
    const results = (await callsOf(id)).map((c) => JSON.parse(c.result!.result!));
    expect(results).toEqual([
      { before: null, inExecution: true },
      { before: "x", inExecution: true },
      { before: null, inExecution: true },
      { before: null, inExecution: false },
    ]);
    expect(direct.status).toBe(200);
  });
});

describe("ThreadState.execution during a turn", () => {
  it("exposes the flow, step counts and live history, and stop() ends the turn before another model step", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [
      { toolCalls: [{ id: "a", name: "inspect_execution", arguments: {} }] },
      { toolCalls: [{ id: "b", name: "inspect_execution", arguments: { stop: true } }] },
      { text: "never said" },
    ]);
    const [first, second] = (await callsOf(id)).map((c) => JSON.parse(c.result!.result!));
    expect(first).toMatchObject({ currentSide: "a", stepCount: 1, sideAStepCount: 1, sideBStepCount: 0, stopped: false, history: ["user", "assistant"] });
    expect(first.flowId).toMatch(/^turn_/);
    expect(second).toMatchObject({ flowId: first.flowId, stepCount: 2, stopped: true, aborted: false });
    expect(second.history).toEqual(["user", "assistant", "tool", "assistant"]);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn).toMatchObject({ status: "stopped", steps: 2 });
    const direct = await json("POST", "/v1/tools/inspect_execution", { input: {}, sessionId: id });
    expect(direct.body.result).toBe("null");
  });
});

describe("Execution as a value", () => {
  it("a direct call, a queued call at rest and an invoked call see their own execution while a turn runs", async () => {
    const id = await createThread({ agent: "guarantees" });
    const posted = await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [
        { toolCalls: [{ id: "t1", name: "remember", arguments: { word: "turn" } }, { id: "t2", name: "slow_read", arguments: { ms: 1500 } }] },
        { toolCalls: [{ id: "t3", name: "delegate", arguments: { mode: "invoke", tool: "remember", args: { word: "invoked" } } }] },
        { toolCalls: [{ id: "t4", name: "inspect_execution", arguments: {} }] },
      ],
    });
    expect(posted.status).toBe(202);
    // Wait until the turn is inside slow_read, then call in from outside it.
    for (let i = 0; i < 100 && !(await callsOf(id)).some((c) => c.callId === "t2"); i++) await new Promise((r) => setTimeout(r, 20));
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    const direct = await json("POST", "/v1/tools/remember", { input: { word: "direct" }, sessionId: id });
    const inspect = await json("POST", "/v1/tools/inspect_execution", { input: {}, sessionId: id });
    const queuing = await json("POST", "/v1/tools/delegate", { input: { mode: "queue", tool: "remember", args: { word: "queued" } }, sessionId: id });
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("running");
    await stubOf(id).waitIdle();

    expect(JSON.parse(direct.body.result)).toEqual({ before: null, inExecution: false });
    expect(inspect.body.result).toBe("null");
    expect(queuing.body.result).toBe("queued remember");
    const calls = await callsOf(id);
    const resultOf = (pred: (c: (typeof calls)[number]) => boolean) => JSON.parse(calls.find(pred)!.result!.result!);
    // The queued call ran at rest (drained by the direct call), with a fresh context.
    expect(resultOf((c) => c.source === "queue")).toEqual({ before: null, inExecution: false });
    // The turn's context saw none of the outside writes; an invoked call shares its caller's run.
    expect(resultOf((c) => c.source === "invoke")).toEqual({ before: "turn", inExecution: true });
    const inTurn = resultOf((c) => c.callId === "t4");
    expect(inTurn).toMatchObject({ stepCount: 3, stopped: false, aborted: false });
    expect(inTurn.flowId).toMatch(/^turn_/);
  });

  it("stopping a turn does not abort a direct read that runs beside it", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "s1", name: "slow_read", arguments: { ms: 5000 } }] }] });
    for (let i = 0; i < 100 && !(await callsOf(id)).some((c) => c.callId === "s1"); i++) await new Promise((r) => setTimeout(r, 20));
    const direct = json("POST", "/v1/tools/slow_read", { input: { ms: 400 }, sessionId: id });
    await new Promise((r) => setTimeout(r, 100));
    expect((await json("POST", `/threads/${id}/stop`)).status).toBe(200);
    const answered = await direct;
    expect(answered.body).toMatchObject({ ok: true, result: "waited 400ms" });
    await stubOf(id).waitIdle();
    const turnCall = (await callsOf(id)).find((c) => c.callId === "s1")!;
    expect(turnCall.status).toBe("aborted");
  });
});
