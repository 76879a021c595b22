/**
 * `DELETE /threads/:id` while work runs in the thread: direct calls already running finish and
 * answer as usual within the grace (`WEFT_DELETE_GRACE_MS`, 5 s in test/wrangler.toml), one still
 * running then is cut short and answers 404 with `details.deleted`, requests that come once the
 * delete began get exactly what a thread that never existed gets, a running turn stops, and a
 * create of the same id afterwards starts empty. Every call gets exactly one answer, no write runs
 * twice, and nothing rejects unhandled.
 */
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, json, effectRuns, messagesOf, stubOf } from "../helpers.js";
import { OWNER, direct, untilDeleting, untilStarted } from "../removal-helpers.js";

// Unhandled rejections in the thread's code (the same isolate as these tests) are collected and
// must stay none.
const unhandled: string[] = [];
const onUnhandled = (event: PromiseRejectionEvent) => void unhandled.push(String(event.reason));
beforeAll(() => globalThis.addEventListener("unhandledrejection", onUnhandled));
afterAll(() => globalThis.removeEventListener("unhandledrejection", onUnhandled));
afterEach(async () => {
  // A rejection is reported once the microtask queue drains after it: give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(unhandled.splice(0)).toEqual([]);
});

/** A valid thread id that names no thread. */
const neverMade = () => (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();

describe("DELETE /threads/:id while calls run", () => {
  it("a write running when the delete arrives finishes and answers as usual; the delete waits for it", async () => {
    const id = await createThread({ agent: "deletable" });
    // Long enough to be seen running, and the delete to arrive meanwhile, on a loaded machine.
    const call = direct("slow_write", { ms: 1500 }, id);
    await untilStarted(id, 1);
    expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: true, isError: false, status: "succeeded", toolName: "slow_write", attempts: 1 });
    expect(JSON.parse(answer.body.result)).toEqual({ runs: 1 });
    expect((await effectRuns(id, answer.body.callId)).runs).toBe(1);
    expect((await json("GET", `/threads/${id}`)).body.error.code).toBe("thread_not_found");
  });

  it("requests that come once the delete began get exactly what a thread that never existed gets", async () => {
    const id = await createThread({ agent: "deletable" });
    const held = direct("slow_write", { ms: 1500 }, id);
    await untilStarted(id, 1);
    const deleting = json("DELETE", `/threads/${id}`);
    await untilDeleting(id);
    const ask = (thread: string) =>
      Promise.all([
        direct("effect_read", {}, thread),
        direct("slow_write", {}, thread),
        json("GET", `/threads/${thread}`),
        json("GET", `/threads/${thread}/calls`),
        json("POST", `/threads/${thread}/messages`, { content: "still there?" }),
        json("POST", `/threads/${thread}/stop`),
        json("DELETE", `/threads/${thread}`),
      ]);
    const missing = neverMade();
    const late = (await ask(id)).map((a) => JSON.stringify(a).replaceAll(id, "<id>"));
    const never = (await ask(missing)).map((a) => JSON.stringify(a).replaceAll(missing, "<id>"));
    expect(late).toEqual(never);
    expect(late.every((a) => a.startsWith('{"status":404,'))).toBe(true);
    expect((await deleting).status).toBe(200);
    expect(await held).toMatchObject({ status: 200, body: { ok: true, status: "succeeded" } });
  });

  it("a call still running when the grace ends is cut short: 404 with details.deleted, and the delete does not wait for a tool that hangs", async () => {
    const id = await createThread({ agent: "deletable" });
    // A write that never answers and ignores its signal, and a long read.
    const hung = direct("slow_write", { hang: true }, id);
    const long = direct("slow_read", { ms: 30_000 }, id);
    await untilStarted(id, 2);
    expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
    for (const answer of [await hung, await long]) {
      expect(answer.status).toBe(404);
      expect(answer.body.error).toMatchObject({ code: "session_not_found", details: { deleted: true, path: ["sessionId"] } });
      expect(answer.body.error.message).toMatch(/^the thread was deleted while this call ran: .*outcome is unknown/);
    }
    const calls = await Promise.all([stubOf(id).callTool(OWNER, { toolName: "effect_read", input: {} }), stubOf(id).info(OWNER)]);
    expect(calls.map((c) => !c.ok && c.error.code)).toEqual(["thread_not_found", "thread_not_found"]);
  });

  it("many reads and writes with a delete among them: one answer each, 200 or 404, no write twice, none after the delete began", async () => {
    const id = await createThread({ agent: "deletable" });
    const stub = stubOf(id);
    const tools = [
      ["effect_read", {}],
      ["effect_write", {}],
      ["slow_write", { ms: 100 }],
      ["slow_read", { ms: 50 }],
    ] as const;
    const fire = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const [toolName, input] = tools[i % tools.length]!;
        const callId = `${prefix}${i}`;
        // A thrown RPC would be a call without its one answer: kept as text, so the check below names it.
        return stub.callTool(OWNER, { toolName, input, callId }).then(
          (answer) => ({ callId, toolName, answer }),
          (e: unknown) => ({ callId, toolName, answer: String(e) }),
        );
      });
    const before = fire("b", 24);
    await untilStarted(id, 3);
    const deleting = json("DELETE", `/threads/${id}`);
    await untilDeleting(id);
    const after = fire("a", 12);
    const answers = await Promise.all([...before, ...after]);
    expect((await deleting).status).toBe(200);
    const succeeded = answers.filter((a) => typeof a.answer !== "string" && a.answer.ok);
    expect(succeeded.length).toBeGreaterThan(0);
    for (const { callId, toolName, answer } of answers) {
      if (typeof answer === "string") throw new Error(`${callId} threw instead of answering: ${answer}`);
      const runs = (await effectRuns(id, callId)).runs;
      if (answer.ok) {
        expect(answer.value.status, callId).toBe("succeeded");
        if (toolName.endsWith("write")) expect(runs, callId).toBe(1);
        continue;
      }
      expect(answer.error.code, callId).toBe("thread_not_found");
      // Not cut (all finish within the grace): refused before anything ran.
      expect(answer.error.details, callId).toBeUndefined();
      expect(runs, callId).toBe(0);
    }
    // Every call that came once the delete began was refused.
    expect(answers.filter((a) => a.callId.startsWith("a")).map((a) => typeof a.answer !== "string" && a.answer.ok)).toEqual(Array(12).fill(false));
  });

  it("an approval running when the delete arrives finishes and answers; a decision that comes after finds no thread", async () => {
    const id = await createThread({ agent: "deletable" });
    const asked = await Promise.all([direct("slow_write", { ms: 1500, ask: true }, id), direct("slow_write", { ask: true }, id)]);
    expect(asked.map((a) => [a.status, a.body.status])).toEqual([
      [202, "awaiting_approval"],
      [202, "awaiting_approval"],
    ]);
    const [first, second] = asked.map((a) => a.body.callId as string);
    const approving = json("POST", `/threads/${id}/calls/${first}/approve`, {});
    await untilStarted(id, 1);
    const deleting = json("DELETE", `/threads/${id}`);
    await untilDeleting(id);
    const late = await Promise.all([json("POST", `/threads/${id}/calls/${second}/approve`, {}), json("POST", `/threads/${id}/calls/${second}/deny`, {})]);
    expect(late.map((a) => [a.status, a.body.error.code])).toEqual([
      [404, "thread_not_found"],
      [404, "thread_not_found"],
    ]);
    expect(await approving).toMatchObject({ status: 200, body: { callId: first, status: "succeeded", final: true } });
    expect((await deleting).status).toBe(200);
    expect((await effectRuns(id, first!)).runs).toBe(1);
    expect((await effectRuns(id, second!)).runs).toBe(0);
  });

  it("a running turn stops at once (its write running, the next call never run) and the rows go", async () => {
    const id = await createThread({ agent: "deletable" });
    const posted = await json("POST", `/threads/${id}/messages`, {
      content: "take your time",
      script: [{ toolCalls: [{ id: "t1", name: "slow_write", arguments: { ms: 30_000 } }, { id: "t2", name: "effect_write", arguments: {} }] }, { text: "never reached" }],
    });
    expect(posted.status).toBe(202);
    await untilStarted(id, 1);
    expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
    expect((await json("GET", `/threads/${id}`)).status).toBe(404);
    expect((await stubOf(id).waitIdle()).ok).toBe(true);
    // The write that was running ran once; the stopped turn ran nothing more.
    expect((await effectRuns(id, "t1")).runs).toBe(1);
    expect((await effectRuns(id, "t2")).runs).toBe(0);
  });

  it("a create of the same id while the delete runs waits for it and starts empty, listed once", async () => {
    const token = `delete-race:${crypto.randomUUID()}`;
    const first = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
    expect(first.status).toBe(201);
    const id = first.body.threadId as string;
    expect((await direct("effect_write", {}, id)).status).toBe(200);
    const held = direct("slow_write", { ms: 1500 }, id);
    await untilStarted(id, 1);
    const deleting = json("DELETE", `/threads/${id}`);
    await untilDeleting(id);
    const again = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
    expect(again.status).toBe(201);
    expect(again.body.threadId).toBe(id);
    expect((await deleting).status).toBe(200);
    expect((await held).status).toBe(200);
    expect(await callsOf(id)).toEqual([]);
    expect(await messagesOf(id)).toEqual([]);
    expect((await eventsOf(id)).map((e) => [e.seq, e.type])).toEqual([[1, "thread_created"]]);
    const listed = await json("GET", "/threads?limit=100");
    expect(listed.body.threads.filter((t: { threadId: string }) => t.threadId === id)).toHaveLength(1);
    // The new thread works: a call runs and is its first.
    expect(await direct("effect_write", { label: "fresh" }, id)).toMatchObject({ status: 200, body: { ok: true } });
    expect((await callsOf(id)).length).toBe(1);
  });
});
