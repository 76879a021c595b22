/**
 * The direct-call lane (`POST /v1/tools/:name` answered without the router) answers exactly as
 * the app does: for each request below, the Worker's `fetch` (through the lane) and the app's own
 * `fetch` give the same status, headers and body (a fresh call's id and duration aside). And the
 * lane takes only the plain requests; the rest go to the app.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { laneRequest } from "../../src/http/direct-lane.js";
import { DirectCallBody, plainDirectCallBody } from "../../src/http/schemas.js";
import { createWeft } from "../../src/runtime.js";
import type { WeftEnv } from "../../src/thread/durable.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, createThread } from "../helpers.js";

const lane = createWeft(registry).worker.fetch;
const app = createApp(registry);
const weftEnv = env as unknown as WeftEnv;

type Case = { path?: string; body?: string | Uint8Array | (() => ReadableStream); headers?: Record<string, string>; as?: keyof typeof API_KEYS | null; env?: Record<string, string> };

/**
 * A fresh request for a case: JSON, as "tester" by API key unless the case says otherwise, with
 * its Content-Length as an HTTP client sends it (a Request made in JavaScript has none).
 */
function requestOf(c: Case): Request {
  const given = c.body ?? "{}";
  const body = typeof given === "function" ? given() : given;
  const length = typeof body === "string" ? new TextEncoder().encode(body).byteLength : body instanceof Uint8Array ? body.byteLength : 16;
  const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(length), ...c.headers };
  const as = c.as === undefined ? "tester" : c.as;
  if (as !== null && headers.authorization === undefined) headers.authorization = `Bearer ${API_KEYS[as]}`;
  return new Request(`http://weft.test${c.path ?? "/v1/tools/echo_json_schema"}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

/** Status, headers and body of an answer; a fresh call's id and duration are replaced by placeholders. */
async function seen(res: Response): Promise<{ status: number; headers: [string, string][]; body: unknown }> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text, (key, value) => (key === "callId" ? "<callId>" : key === "durationMs" ? "<ms>" : value));
  } catch {
    // Not JSON: compared as text.
  }
  return { status: res.status, headers: [...res.headers].filter(([name]) => name !== "content-length"), body };
}

async function bothWays(c: Case) {
  const e = (c.env ? { ...weftEnv, ...c.env } : weftEnv) as WeftEnv;
  const viaLane = await seen(await lane(requestOf(c), e));
  const viaApp = await seen(await app.fetch(requestOf(c), e));
  return { viaLane, viaApp };
}

describe("POST /v1/tools/:name through the lane", () => {
  it("answers every request as the app does: results, client errors, auth errors", async () => {
    const session = await createThread();
    const others = await (async () => {
      const res = await lane(requestOf({ path: "/threads", body: "{}", as: "bob" }), weftEnv);
      return ((await res.json()) as { threadId: string }).threadId;
    })();
    const call = (body: unknown) => JSON.stringify(body);
    const cases: Record<string, Case> = {
      "a result": { body: call({ input: { city: "Oslo" }, sessionId: session }) },
      "a result in a scratch thread": { body: call({ input: { city: "Oslo" } }) },
      "an unknown tool": { path: "/v1/tools/no_such_tool", body: call({ input: {}, sessionId: session }) },
      "an invalid tool input": { body: call({ input: { city: "" }, sessionId: session }) },
      "an unknown body field": { body: call({ city: "Oslo", sessionId: session }) },
      "a body that is not JSON": { body: "{ not json" },
      "a body of invalid UTF-8": { body: new Uint8Array([0x7b, 0x22, 0x69, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) },
      "a body of invalid UTF-8 that is not JSON": { body: new Uint8Array([0x7b, 0x22, 0x69, 0x22, 0x3a, 0x22, 0xff, 0xfe]) },
      "a body after a byte-order mark": { body: `\uFEFF${call({ input: { city: "Oslo" }, sessionId: session })}` },
      "a body that fails as it is read": {
        body: () => new ReadableStream({ start: (controller) => controller.error(new Error("client went away")) }),
      },
      "a body that is null": { body: "null" },
      "a body that is an array": { body: "[1, 2]" },
      "a body nested too deep": { body: `${"[".repeat(70)}${"]".repeat(70)}` },
      "a lone surrogate": { body: '{"input": {"city": "\\ud800"}}' },
      "a text/plain body": { headers: { "content-type": "text/plain" }, body: call({ input: { city: "Oslo" } }) },
      "a body over the body limit": { body: call({ input: { city: "Oslo".repeat(40) } }), env: { WEFT_MAX_BODY_BYTES: "100" } },
      "an input over the tool-input limit": { body: call({ input: { city: "Oslo".repeat(40) }, sessionId: session }), env: { WEFT_MAX_TOOL_INPUT_BYTES: "50" } },
      "an empty session id": { body: call({ input: { city: "Oslo" }, sessionId: "" }) },
      "a session id that is a number": { body: call({ input: { city: "Oslo" }, sessionId: 7 }) },
      "a continuation token that is null": { body: call({ input: {}, continuationToken: null }) },
      "a __proto__ field": { body: `{"input": {"city": "Oslo"}, "__proto__": {"sessionId": "x"}}` },
      "no input": { body: call({ sessionId: session }) },
      "a session id that names no thread": { body: call({ input: { city: "Oslo" }, sessionId: "zz" }) },
      "another user's session": { body: call({ input: { city: "Oslo" }, sessionId: others }) },
      "a session id and a continuation token": { body: call({ input: {}, sessionId: session, continuationToken: "c:k" }) },
      "a malformed continuation token": { body: call({ input: {}, continuationToken: "nocolon" }) },
      "a malformed Idempotency-Key": { headers: { "idempotency-key": "" }, body: call({ input: { city: "Oslo" }, sessionId: session }) },
      "no credentials and a text/plain body (authentication is checked first)": { as: null, headers: { "content-type": "text/plain" }, body: "{ not json" },
      "no credentials": { as: null, body: call({ input: { city: "Oslo" }, sessionId: session }) },
      "an unknown API key": { headers: { authorization: "Bearer nope" }, body: call({ input: { city: "Oslo" }, sessionId: session }) },
      "a token that does not verify": { headers: { authorization: "Bearer a.b.c" }, body: call({ input: { city: "Oslo" }, sessionId: session }) },
      "no authentication configured": { env: { WEFT_API_KEYS: "", WEFT_JWT_SECRET: "" }, body: call({ input: { city: "Oslo" }, sessionId: session }) },
    };
    for (const [name, c] of Object.entries(cases)) {
      const { viaLane, viaApp } = await bothWays(c);
      expect(viaLane, name).toEqual(viaApp);
      expect(viaLane.status, name).not.toBe(500);
    }
  });

  it("measures a tool input as it is re-serialized, which can be longer than the body it came in", async () => {
    const session = await createThread();
    // Each `1e20` (4 bytes) comes back as 21 digits: a 180-byte body holds a 250-byte input.
    const body = `{"input":{"n":[${Array(10).fill("1e20").join(",")}]},"sessionId":"${session}"}`;
    const c: Case = { body, env: { WEFT_MAX_TOOL_INPUT_BYTES: "200" } };
    expect(new TextEncoder().encode(body).byteLength).toBeLessThan(200);
    const { viaLane, viaApp } = await bothWays(c);
    expect(viaLane).toEqual(viaApp);
    expect([viaLane.status, (viaLane.body as { error: { code: string; details: unknown } }).error]).toMatchObject([413, { code: "payload_too_large", details: { path: ["input"] } }]);
  });

  it("keeps an Idempotency-Key as the app does: a repeat through the app replays the lane's answer", async () => {
    const session = await createThread();
    const c: Case = { headers: { "idempotency-key": `lane-${crypto.randomUUID()}` }, body: JSON.stringify({ input: { city: "Oslo" }, sessionId: session }) };
    const first = await lane(requestOf(c), weftEnv);
    const repeat = await app.fetch(requestOf(c), weftEnv);
    expect(first.status).toBe(200);
    expect(await repeat.text()).toBe(await first.text());
    // The same key with another body is refused, not replayed: the fingerprints agree.
    const other = await app.fetch(requestOf({ ...c, body: JSON.stringify({ input: { city: "Bergen" }, sessionId: session }) }), weftEnv);
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reused");
  });
});

describe("laneRequest", () => {
  const plain = () => requestOf({ body: "{}" });
  it("takes a plain direct call", () => {
    expect(laneRequest(plain(), weftEnv)).toMatchObject({ name: "echo_json_schema", path: "/v1/tools/echo_json_schema", mode: "verify" });
  });

  it("leaves every other request to the app", () => {
    const other = (init: RequestInit & { url?: string }) =>
      new Request(init.url ?? "http://weft.test/v1/tools/echo_json_schema", { method: "POST", headers: { "content-type": "application/json", "content-length": "2" }, body: "{}", ...init });
    const left: Record<string, [Request, Record<string, string>?]> = {
      "a GET": [new Request("http://weft.test/v1/tools/echo_json_schema")],
      "another route": [other({ url: "http://weft.test/threads" })],
      "a nested path": [other({ url: "http://weft.test/v1/tools/a/b" })],
      "a trailing slash": [other({ url: "http://weft.test/v1/tools/a/" })],
      "a percent-encoded path": [other({ url: "http://weft.test/v1/tools/echo%5Fjson_schema" })],
      "a query string": [other({ url: "http://weft.test/v1/tools/echo_json_schema?x=1" })],
      "an empty body": [other({ body: "", headers: { "content-type": "application/json", "content-length": "0" } })],
      "a body of no declared length": [other({ headers: { "content-type": "application/json" } })],
      "a chunked body": [
        other({ body: new Blob(["{}"]).stream(), duplex: "half", headers: { "content-type": "application/json", "content-length": "2", "transfer-encoding": "chunked" } } as RequestInit),
      ],
      "CORS configured": [plain(), { WEFT_CORS_ORIGINS: "https://app.example" }],
      "development mode": [other({ url: "http://localhost/v1/tools/echo_json_schema" }), { WEFT_API_KEYS: "", WEFT_JWT_SECRET: "", WEFT_DEV_MODE: "on" }],
    };
    for (const [name, [req, vars]] of Object.entries(left)) {
      expect(laneRequest(req, (vars ? { ...weftEnv, ...vars } : weftEnv) as WeftEnv), name).toBeNull();
    }
  });
});

describe("plainDirectCallBody", () => {
  it("gives DirectCallBody's output for the bodies it takes, and leaves every other body to it", () => {
    const bodies: unknown[] = [
      { input: { city: "Oslo" }, sessionId: "s" },
      { input: null, continuationToken: "c:k" },
      { sessionId: "s" },
      {},
      { input: [1, 2], sessionId: "s", continuationToken: "c:k" },
      { input: {}, sessionId: "" },
      { input: {}, sessionId: 7 },
      { input: {}, continuationToken: null },
      { input: {}, city: "Oslo" },
      JSON.parse('{"input": {}, "__proto__": {"sessionId": "s"}}'),
      null,
      [],
      "text",
    ];
    for (const body of bodies) {
      const plain = plainDirectCallBody(body);
      const parsed = DirectCallBody.safeParse(body);
      if (plain === null) continue;
      expect(parsed.success, JSON.stringify(body)).toBe(true);
      expect(Object.entries(plain), JSON.stringify(body)).toEqual(Object.entries(parsed.data!));
    }
    // The usual body is taken without zod.
    expect(plainDirectCallBody({ input: { city: "Oslo" }, sessionId: "s" })).toEqual({ input: { city: "Oslo" }, sessionId: "s" });
  });
});
