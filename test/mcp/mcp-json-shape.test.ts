/**
 * `tools/call` arguments on `/mcp` are held to the shape every other body is (review 21d): nesting
 * within WEFT_MAX_JSON_DEPTH and no lone surrogate. They were handed to the thread as sent, and a
 * value deep enough to overflow a stack was answered as a run cut before it answered, with the
 * engine's message. Review 21e: a session named in `_meta` with a lone surrogate passed too.
 */
import { expect, it } from "vitest";
import { request } from "../helpers.js";

const rpc = async (id: number, args: string) => {
  // The refusal's text names the offending path.
  const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo_json_schema","arguments":${args}}}`;
  const res = await request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
  return (await res.json()) as { result?: { isError?: boolean; content?: Array<{ text: string }>; _meta?: Record<string, unknown> }; error?: unknown };
};
const nested = (depth: number) => `${'{"x":'.repeat(depth)}1${"}".repeat(depth)}`;

it("too deep, or holding a lone surrogate, is refused as the client's mistake with its path", async () => {
  for (const [id, args, path] of [
    [1, `{"city":"Oslo","deep":${nested(80)}}`, "params.arguments.deep.x"],
    [2, `{"city":"Oslo\\ud800"}`, "params.arguments.city"],
    [3, `{"city":"Oslo","deep":${nested(20000)}}`, "params.arguments.deep.x"],
  ] as const) {
    const answer = await rpc(id, args);
    expect([id, answer.result?.isError, answer.result?._meta?.["weft/errorCode"]]).toEqual([id, true, "invalid_request"]);
    expect(answer.result?.content?.[0]?.text).toContain(`invalid_request: ${path}`);
  }
});

it("a session named with a lone surrogate in _meta is refused too (review 21e), as POST /v1/tools refuses it", async () => {
  for (const key of ["weft/continuationToken", "weft/sessionId"]) {
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo_json_schema","arguments":{"city":"Oslo"},"_meta":{"${key}":"slack:a\\ud800"}}}`;
    const res = await request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
    const answer = (await res.json()) as { result?: { isError?: boolean; content?: Array<{ text: string }> } };
    expect([key, answer.result?.isError, answer.result?.content?.[0]?.text]).toEqual([key, true, expect.stringContaining(`invalid_request: _meta.${key}: holds a lone surrogate`)]);
  }
});

it("a batch holds one tools/call and 16 messages at most (review 21f: 100 calls in one request ran, a thread each)", async () => {
  const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_server_time", arguments: {} } });
  const post = async (body: unknown) => {
    const res = await request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
    return [res.status, JSON.stringify(await res.json())] as const;
  };
  const [twoStatus, two] = await post([call(1), call(2)]);
  expect([twoStatus, two]).toEqual([400, expect.stringContaining("a batch holds one tools/call at most")]);
  const [manyStatus, many] = await post(Array.from({ length: 17 }, (_, i) => ({ jsonrpc: "2.0", method: "notifications/initialized", params: { i } })));
  expect([manyStatus, many]).toEqual([400, expect.stringContaining("a batch holds at most 16 messages")]);
  const [oneStatus, one] = await post([call(3), { jsonrpc: "2.0", id: 4, method: "tools/list" }]);
  expect([oneStatus, JSON.parse(one).length]).toEqual([200, 2]);
});
