import { describe, expect, it } from "vitest";
import { createThread, json, request, stubOf } from "../helpers.js";

describe("GET /v1/tools", () => {
  it("lists every tool with schemas, effect and a configHash over all of them", async () => {
    const { status, body } = await json("GET", "/v1/tools");
    expect(status).toBe(200);
    const person = body.tools.find((t: { name: string }) => t.name === "person");
    expect(person).toMatchObject({
      description: "Echo a person's name and age as JSON",
      effect: "read",
      inputSchema: { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] },
      outputSchema: null,
    });
    expect(body.tools.find((t: { name: string }) => t.name === "record_call").effect).toBe("write");
    expect(body.configHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await json("GET", "/v1/tools")).body.configHash).toBe(body.configHash);
  });
});

describe("POST /v1/tools/:name", () => {
  it("runs a tool on an ephemeral thread and answers the Agent SDK tools reference's envelope", async () => {
    const { status, body } = await json("POST", "/v1/tools/person", { input: { name: "Ada", age: 36 } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, toolName: "person", isError: false, result: '{"name":"Ada","age":36}', scratchWorkspace: true });
    expect(body.callId).toMatch(/^tool_person_/);
    expect(typeof body.durationMs).toBe("number");
  });

  it("answers 404 unknown_tool listing the names", async () => {
    const { status, body } = await json("POST", "/v1/tools/nope", { input: {} });
    expect(status).toBe(404);
    expect(body.error.code).toBe("unknown_tool");
    expect(body.error.details.available).toContain("person");
  });

  it("answers 400 invalid_tool_input naming the path, without running the tool", async () => {
    const { status, body } = await json("POST", "/v1/tools/person", { input: { name: "x", age: "3" } });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "invalid_tool_input", message: "age: expected number, received string", details: { path: ["age"] } });
  });

  it("reports a throwing tool as isError with its message", async () => {
    const { status, body } = await json("POST", "/v1/tools/throws_error", { input: { kind: "object" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: false, isError: true, result: null });
    expect(body.error).toContain('{"code":7}');
  });

  it("refuses a bare string or a plain object from execute as an error result naming it (execute returns a ToolResult)", async () => {
    const bare = await json("POST", "/v1/tools/returns_bare", { input: { kind: "string" } });
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ ok: false, isError: true, result: null });
    expect(bare.body.error).toBe('tool returned a bare string ("Order 42 found"); expected a ToolResult { status: "success" | "error", result?, error? }');
    const plain = await json("POST", "/v1/tools/returns_bare", { input: { kind: "object" } });
    expect(plain.body).toMatchObject({ ok: false, isError: true, result: null });
    expect(plain.body.error).toBe('tool returned {"order":42}; expected a ToolResult { status: "success" | "error", result?, error? }');
  });

  it("names an unknown top-level key instead of ignoring it (arguments go in input)", async () => {
    const { status, body } = await json("POST", "/v1/tools/person", { name: "Ada", age: 36 });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      code: "invalid_request",
      message: 'name: unknown field; did you mean {"input": {...}}?; age: unknown field; did you mean {"input": {...}}?',
      details: { path: ["name"] },
    });
  });

  it("binds to a session, and rejects a bad or doubled identifier", async () => {
    const id = await createThread({ agent: "faults" });
    const bound = await json("POST", "/v1/tools/record_call", { input: { x: 1 }, sessionId: id });
    expect(bound.status).toBe(200);
    const calls = (await json("GET", `/threads/${id}/calls`)).body.calls;
    expect(calls.map((c: { source: string }) => c.source)).toEqual(["direct"]);

    const missing = await json("POST", "/v1/tools/person", { input: {}, sessionId: "f".repeat(64) });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("session_not_found");
    const garbage = await json("POST", "/v1/tools/person", { input: {}, sessionId: "not-an-id" });
    expect(garbage.body.error.code).toBe("session_not_found");

    const both = await json("POST", "/v1/tools/person", { input: {}, sessionId: id, continuationToken: "web:1" });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe("invalid_continuation_token");
    const malformed = await json("POST", "/v1/tools/person", { input: {}, continuationToken: "no-colon" });
    expect(malformed.body.error.code).toBe("invalid_continuation_token");
  });

  it("maps a continuation token to its thread, or to a scratch thread when none exists", async () => {
    const token = `web:${crypto.randomUUID()}`;
    const scratch = await json("POST", "/v1/tools/record_call", { input: { a: 1 }, continuationToken: token });
    expect(scratch.body.scratchWorkspace).toBe(true);
    const created = await json("POST", "/threads", { agent: "faults", continuationToken: token });
    expect(created.status).toBe(201);
    const bound = await json("POST", "/v1/tools/record_call", { input: { a: 2 }, continuationToken: token });
    expect(bound.body.scratchWorkspace).toBeUndefined();
    const calls = (await json("GET", `/threads/${created.body.threadId}/calls`)).body.calls;
    expect(calls).toHaveLength(1);
  });

  it("on a busy session runs reads alongside the turn and refuses writes with 409 session_busy", async () => {
    const id = await createThread({ agent: "faults" });
    await json("POST", `/threads/${id}/messages`, {
      content: "wait",
      script: [{ toolCalls: [{ name: "slow_read", arguments: { ms: 300 } }] }],
    });
    const write = await json("POST", "/v1/tools/record_call", { input: {}, sessionId: id });
    expect(write.status).toBe(409);
    expect(write.body.error.code).toBe("session_busy");
    // It is refused, not held: the message says so and when to retry.
    expect(write.body.error.message).toBe('this thread\'s turn has not finished; "record_call" is not a read, so it is refused now: retry after the turn finishes');
    const read = await json("POST", "/v1/tools/person", { input: { name: "r", age: 1 }, sessionId: id });
    expect(read.status).toBe(200);
    await stubOf(id).waitIdle();
    const after = await json("POST", "/v1/tools/record_call", { input: {}, sessionId: id });
    expect(after.status).toBe(200);
  });
});

describe("thread routes", () => {
  it("creates, reads, posts and lists messages", async () => {
    const created = await json("POST", "/threads", { arguments: { a: 1 } });
    expect(created.status).toBe(201);
    const id = created.body.threadId;
    const info = await json("GET", `/threads/${id}`);
    expect(info.body).toMatchObject({ threadId: id, agentId: "default", arguments: { a: 1 }, status: "idle", messageCount: 0 });
    const posted = await json("POST", `/threads/${id}/messages`, { content: "hello", script: [{ text: "hi there" }] });
    expect(posted.status).toBe(202);
    expect(posted.body.message).toMatchObject({ role: "user", content: "hello" });
    await stubOf(id).waitIdle();
    const page = await json("GET", `/threads/${id}/messages?order=desc&limit=1`);
    expect(page.body).toMatchObject({ total: 2, hasMore: true });
    expect(page.body.messages[0].content).toBe("hi there");
  });

  it("takes an empty body labelled JSON as {} where every field is optional, as it takes no body", async () => {
    // curl -X POST -H 'content-type: application/json' <url> (no -d): an approve or a create with no fields.
    const labels: Array<Record<string, string>> = [{ "content-type": "application/json" }, { "content-type": "application/json", "content-length": "0" }];
    for (const headers of labels) {
      const res = await request("/threads", { method: "POST", headers });
      expect(res.status).toBe(201);
    }
  });

  it("answers client mistakes with 4xx and a code, never 500", async () => {
    const cases: Array<[string, string, string | undefined, number, string]> = [
      ["POST", "/threads", "{not json", 400, "invalid_json"],
      ["POST", "/threads", "text:{}", 415, "unsupported_media_type"],
      ["POST", "/threads", JSON.stringify({ agent: 5 }), 400, "invalid_request"],
      ["POST", "/threads", JSON.stringify({ agent: "ghost" }), 404, "agent_not_found"],
      ["POST", "/threads", JSON.stringify({ asOf: "yesterday" }), 400, "invalid_request"],
      ["GET", "/threads/zzz", undefined, 404, "thread_not_found"],
      ["GET", `/threads/${"a".repeat(64)}`, undefined, 404, "thread_not_found"],
      ["GET", "/nowhere", undefined, 404, "not_found"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const plain = body?.startsWith("text:");
      const headers = { "content-type": plain ? "text/plain" : "application/json" };
      const res = await request(path, { method, ...(body ? { body: plain ? body.slice(5) : body, headers } : {}) });
      expect([path, res.status]).toEqual([path, status]);
      expect((await res.json<any>()).error.code).toBe(code);
    }
    const id = await createThread();
    const badScript = await json("POST", `/threads/${id}/messages`, { content: "x", script: [{ toolCalls: [{ arguments: {} }] }] });
    expect(badScript.status).toBe(400);
    expect(badScript.body.error.details.path).toEqual(["script", 0, "toolCalls", 0, "name"]);
    const badPage = await json("GET", `/threads/${id}/messages?limit=abc`);
    expect(badPage.status).toBe(400);
    expect(badPage.body.error.details.path).toEqual(["limit"]);
    const noContent = await json("POST", `/threads/${id}/messages`, { script: [] });
    expect(noContent.status).toBe(400);
    expect(noContent.body.error.details.path).toEqual(["content"]);
  });
});

describe("edges a client can hit", () => {
  it("refuses prototype names as agents, and a second thread for one continuation token with 409", async () => {
    for (const agent of ["__proto__", "constructor", "toString"]) {
      const res = await json("POST", "/threads", { agent });
      expect([agent, res.status, res.body.error?.code]).toEqual([agent, 404, "agent_not_found"]);
    }
    const token = `web:${crypto.randomUUID()}`;
    const first = await json("POST", "/threads", { continuationToken: token });
    const again = await json("POST", "/threads", { continuationToken: token });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "thread_exists", details: { threadId: first.body.threadId, path: ["continuationToken"] } });
  });

  it("answers 413 for content over a message's limit however it is encoded, never 500", async () => {
    const id = await createThread();
    const wide = await json("POST", `/threads/${id}/messages`, { content: "é".repeat(600_000) }); // 1.2 MB of UTF-8
    expect(wide.status).toBe(413);
    expect(wide.body.error).toMatchObject({ code: "payload_too_large", details: { path: ["content"] } });
    const huge = await json("POST", `/threads/${id}/messages`, { content: "é".repeat(5_000_000) }); // 10 MB body
    expect(huge.status).toBe(413);
    expect((await json("GET", `/threads/${id}`)).body.messageCount).toBe(0);
  });

  it("gives a direct call the full result even when a model would see it capped", async () => {
    const res = await json("POST", "/v1/tools/big_result", { input: { bytes: 50_000 } });
    expect(res.status).toBe(200);
    expect(res.body.result.length).toBe(50_000);
  });

  it("refuses a result that cannot be serialised instead of recording [object Object]", async () => {
    const { normalizeResult } = await import("../../src/calls/result.js");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const out = normalizeResult({ status: "success", result: circular });
    expect(out.status).toBe("error");
    expect(out.error).toMatch(/cannot be serialised as JSON/);
  });
});
