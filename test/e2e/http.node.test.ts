/**
 * End to end over real sockets: `wrangler dev` of weft over its test fixtures, driven with Node's
 * global `fetch` and `WebSocket` the way a user's client would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busyScript, call, createThread, range1, sharedWeft, subscribe, waitIdle, type DevServer } from "./support.js";
import { ONE_TOOL_TURN_TYPES } from "../frames.js";

let weft: DevServer;
let base: string;

beforeAll(async () => {
  weft = await sharedWeft("dev");
  base = weft.url;
});
afterAll(async () => {
  await weft?.stop();
});

describe("GET /v1/tools", () => {
  it("lists every tool, sorted, with its schema, effect and a configHash", async () => {
    const res = await call(base, "GET", "/v1/tools");
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    const names = res.body.tools.map((t: any) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["list_drafts", "save_draft", "sum_range", "throws_error"]));
    expect(res.body.configHash).toMatch(/^[0-9a-f]{64}$/);
    const sum = res.body.tools.find((t: any) => t.name === "sum_range");
    expect(sum).toMatchObject({
      effect: "read",
      endsTurn: false,
      needsApproval: false,
      inputSchema: { type: "object", properties: { from: { type: "integer", default: 1 }, to: { type: "integer", default: 3 } } },
    });
    expect(res.body.tools.find((t: any) => t.name === "save_draft")).toMatchObject({ effect: "write", inputSchema: { required: ["title", "body"] } });
    // The listing is stable: the same tools hash the same.
    expect((await call(base, "GET", "/v1/tools")).body.configHash).toBe(res.body.configHash);
  });
});

describe("POST /v1/tools/:name", () => {
  it("runs a tool directly and answers { ok, toolName, callId, isError, result, durationMs }", async () => {
    const res = await call(base, "POST", "/v1/tools/sum_range", { input: { from: 18, to: 20 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, toolName: "sum_range", isError: false, attempts: 1, status: "succeeded" });
    expect(res.body.callId).toMatch(/^tool_sum_range_/);
    expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(res.body.result)).toEqual({ numbers: [18, 19, 20], total: 57 });
  });

  it("applies schema defaults when input is left out", async () => {
    const res = await call(base, "POST", "/v1/tools/sum_range", {});
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.result)).toEqual({ numbers: [1, 2, 3], total: 6 });
  });

  it("answers 404 unknown_tool listing the tools there are", async () => {
    const res = await call(base, "POST", "/v1/tools/sum_rang", { input: {} });
    expect(res.status).toBe(404);
    const listed = (await call(base, "GET", "/v1/tools")).body.tools.map((t: any) => t.name);
    expect(res.body.error).toMatchObject({ code: "unknown_tool", details: { toolName: "sum_rang", available: listed } });
    expect(res.body.error.message).toContain("sum_range");
  });

  it("answers 400 invalid_tool_input naming the failing path, and runs nothing", async () => {
    const wrongType = await call(base, "POST", "/v1/tools/sum_range", { input: { to: "twenty" } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: "invalid_tool_input", details: { path: ["to"] } });
    expect(wrongType.body.error.message).toMatch(/^to: /);

    // Against a session (a thread), so what ran can be checked afterwards.
    const sessionId = await createThread(base);
    const missing = await call(base, "POST", "/v1/tools/save_draft", { sessionId, input: { title: "no body" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_tool_input", details: { path: ["body"] } });
    expect(missing.body.error.message).toMatch(/^body: /);
    const drafts = await call(base, "POST", "/v1/tools/list_drafts", { sessionId });
    expect(drafts.body).toMatchObject({ ok: true, result: "No drafts saved yet." });
    const calls = await call(base, "GET", `/threads/${sessionId}/calls`);
    expect(calls.body.calls.map((c: any) => c.toolName)).toEqual(["list_drafts"]);
  });

  it("runs against a session: a write then a read see the same thread", async () => {
    const sessionId = await createThread(base);
    const saved = await call(base, "POST", "/v1/tools/save_draft", { sessionId, input: { title: "milk", body: "buy oat milk" } });
    expect(saved.body).toMatchObject({ ok: true, result: 'Saved the draft "milk".' });
    const listed = await call(base, "POST", "/v1/tools/list_drafts", { sessionId, input: { query: "mil" } });
    expect(JSON.parse(listed.body.result)).toEqual([{ title: "milk", body: "buy oat milk" }]);
  });
});

describe("malformed JSON bodies", () => {
  it.each([
    ["POST /threads", "/threads"],
    ["POST /v1/tools/sum_range", "/v1/tools/sum_range"],
  ])("%s answers 400 invalid_json", async (_label, path) => {
    const res = await call(base, "POST", path, '{"input": {"sides": 6,');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: "invalid_json", message: expect.stringMatching(/^request body is not valid JSON/) } });
  });

  it("POST /threads/:id/messages answers 400 invalid_json and starts no turn", async () => {
    const id = await createThread(base);
    const res = await call(base, "POST", `/threads/${id}/messages`, "{content: hi}");
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_json");
    const info = await call(base, "GET", `/threads/${id}`);
    expect(info.body).toMatchObject({ status: "idle", messageCount: 0, lastSeq: 1 });
  });
});

describe("a thread over HTTP and WebSocket", () => {
  it("streams a scripted turn as gap-free frames and keeps its messages", async () => {
    const id = await createThread(base);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const sub = await subscribe(base, id);
    const posted = await call(base, "POST", `/threads/${id}/messages`, {
      content: "Sum up to 20 for me.",
      script: [
        { text: "Summing.", toolCalls: [{ id: "call_sum", name: "sum_range", arguments: { to: 20 } }] },
        { text: "There you go." },
      ],
    });
    expect(posted.status).toBe(202);
    expect(posted.body).toMatchObject({ queued: false, message: { id: 1, role: "user", content: "Sum up to 20 for me." } });

    await sub.until((f) => f.some((e) => e.type === "turn_finished"));
    sub.close();
    const frames = sub.frames;
    expect(frames.map((f) => f.seq)).toEqual(range1(frames.length));
    for (const f of frames) {
      expect(Object.keys(f).sort()).toEqual(["at", "data", "seq", "type"]);
      expect(new Date(f.at).toISOString()).toBe(f.at);
    }
    expect(frames.map((f) => f.type)).toEqual([...ONE_TOOL_TURN_TYPES]);
    const byType = (t: string) => frames.filter((f) => f.type === t);
    expect(byType("thread_created")[0]!.data).toEqual({ threadId: id, agentId: "default" });
    expect(byType("tool_call_started")[0]!.data).toEqual({ callId: "call_sum", toolName: "sum_range", source: "model", input: { from: 1, to: 20 } });
    const finished = byType("tool_call_finished")[0]!.data;
    expect(finished).toMatchObject({ callId: "call_sum", toolName: "sum_range", status: "succeeded", isError: false, attempts: 1 });
    const turnId = byType("turn_started")[0]!.data.turnId;
    expect(frames.at(-1)!.data).toEqual({ turnId, status: "completed", steps: 2 });

    const messages = await call(base, "GET", `/threads/${id}/messages`);
    expect(messages.status).toBe(200);
    expect(messages.body).toMatchObject({ total: 4, hasMore: false });
    expect(messages.body.messages.map((m: any) => [m.id, m.role, m.content])).toEqual([
      [1, "user", "Sum up to 20 for me."],
      [2, "assistant", "Summing."],
      [3, "tool", finished.result],
      [4, "assistant", "There you go."],
    ]);
    expect(messages.body.messages[1].toolCalls).toEqual([{ id: "call_sum", name: "sum_range", arguments: '{"to":20}' }]);
    expect(messages.body.messages[2]).toMatchObject({ toolCallId: "call_sum", name: "sum_range" });
    // The message frames carry the very messages the API returns.
    expect(byType("message_created").map((f) => f.data.message)).toEqual(messages.body.messages);

    const info = await call(base, "GET", `/threads/${id}`);
    expect(info.body).toMatchObject({ threadId: id, status: "idle", messageCount: 4, lastSeq: frames.length, lastTurn: { turnId, status: "completed" } });
  });

  it("a socket dropped mid-stream and reopened with ?since=<last seq> gets exactly the missing frames", async () => {
    const id = await createThread(base);
    // The client drops right after its 7th frame, while the turn is still producing more.
    const first = await subscribe(base, id, undefined, { dropAfter: 7 });
    const posted = await call(base, "POST", `/threads/${id}/messages`, { content: "go", script: busyScript(8, "drop") });
    expect(posted.status).toBe(202);
    await first.until((f) => f.length >= 7);
    const seen = [...first.frames];
    const last = seen.at(-1)!.seq;
    expect(seen.map((f) => f.seq)).toEqual(range1(7));

    const again = await subscribe(base, id, last);
    await again.until((f) => f.some((e) => e.type === "turn_finished"));
    const info = await waitIdle(base, id);
    await again.until((f) => (f.at(-1)?.seq ?? 0) >= info.lastSeq);
    again.close();

    // 8 steps x (model_step, assistant message, 3 x (started, finished, tool message)) + the rest.
    expect(info.lastSeq).toBe(1 + 2 + 8 * 11 + 3);
    expect(again.frames[0]!.seq).toBe(last + 1);
    expect([...seen, ...again.frames].map((f) => f.seq)).toEqual(range1(info.lastSeq));
    const started = [...seen, ...again.frames].filter((f) => f.type === "tool_call_started").map((f) => f.data.callId);
    expect(started).toHaveLength(24);
    expect(new Set(started).size).toBe(24);

    // A third client from the start sees the same stream, frame for frame.
    const replay = await subscribe(base, id, 0);
    await replay.until((f) => f.length >= info.lastSeq);
    replay.close();
    expect(replay.frames).toEqual([...seen, ...again.frames]);
  });

  it("answers 404 thread_not_found for an id that names no thread", async () => {
    const bogus = await call(base, "GET", "/threads/not-a-thread");
    expect(bogus.status).toBe(404);
    expect(bogus.body.error.code).toBe("thread_not_found");
  });
});

describe("development mode (npm start: wrangler dev, no credentials)", () => {
  it("says so loudly at start and on every response, and acts as the dev user", async () => {
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(weft.logFile, "utf8")).toContain("weft: DEVELOPMENT MODE");
    for (const path of ["/v1/tools", "/threads/not-a-thread", "/nowhere"]) {
      const res = await fetch(base + path);
      expect([path, res.headers.get("x-weft-dev-mode")?.startsWith("on: no authentication")]).toEqual([path, true]);
    }
    expect((await call(base, "GET", "/account")).body).toMatchObject({ userId: "dev", admin: true });
    const guessed = await fetch(`${base}/account`, { headers: { authorization: "Bearer not-a-key" } });
    expect([guessed.status, ((await guessed.json()) as any).error.code]).toEqual([401, "unauthenticated"]);
    const plain = await fetch(`${base}/threads`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(plain.status).toBe(415);
  });
});
