import { describe, expect, it } from "vitest";
import { createThread, json, messagesOf, request } from "../helpers.js";

/** `{"a":{"a":...}}` nested `levels` deep, as text (JSON.stringify of it would overflow here too). */
function deep(levels: number): string {
  return '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
}

describe("bodies that cannot cross to a Durable Object get 400, never 500", () => {
  it("refuses 20,000 levels of nesting in a direct call's input, naming the limit", async () => {
    const res = await json("POST", "/v1/tools/echo_json_schema", `{"input":${deep(20_000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.message).toContain("the limit is 64 levels (WEFT_MAX_JSON_DEPTH)");
    expect(res.body.error.details).toMatchObject({ limit: 64 });
    expect(res.body.error.details.path.slice(0, 3)).toEqual(["input", "a", "a"]);
  });

  it("refuses deep thread arguments and deep script-step arguments", async () => {
    const created = await json("POST", "/threads", `{"arguments":${deep(20_000)}}`);
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe("invalid_request");
    const id = await createThread();
    const step = `{"content":"hi","script":[{"toolCalls":[{"id":"c","name":"remember","arguments":${deep(20_000)}}]}]}`;
    const posted = await json("POST", `/threads/${id}/messages`, step);
    expect(posted.status).toBe(400);
    expect(posted.body.error.message).toMatch(/nested more than 64 levels/);
    expect(await messagesOf(id)).toEqual([]);
  });

  it("names the body, not a tool's input, when the whole body has the wrong type", async () => {
    const id = await createThread();
    for (const [path, body] of [["/threads", "[]"], [`/threads/${id}/messages`, "null"], [`/threads/${id}/schedules`, "[]"], ["/v1/tools/echo_json_schema", "7"]] as const) {
      const res = await json("POST", path, body);
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatchObject({ code: "invalid_request", details: { path: [], in: "body" } });
      expect(res.body.error.message, path).toMatch(/^body: expected object, received /);
    }
  });

  it("accepts a value exactly at the limit", async () => {
    const at = await json("POST", "/threads", `{"arguments":${deep(63)}}`);
    expect(at.status).toBe(201);
    const over = await json("POST", "/threads", `{"arguments":${deep(64)}}`);
    expect(over.status).toBe(400);
  });

  it("answers malformed percent-encoding in a path with 400", async () => {
    const id = await createThread();
    for (const path of [`/threads/${id}/files/%ZZ`, `/threads/${id}/calls/%E0%A4%A`, "/threads/%ZZ", `/threads/${id}/files/%ED%A0%80`]) {
      const res = await request(path);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as any).error.code).toBe("invalid_request");
    }
  });

  it("refuses a lone surrogate in message content instead of storing replacement characters", async () => {
    const id = await createThread();
    const res = await json("POST", `/threads/${id}/messages`, { content: "a \ud800 b" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: ["content"] } });
    expect(res.body.error.message).toContain("lone surrogate at index 2");
    expect(await messagesOf(id)).toEqual([]);
    // A well-formed pair is text like any other.
    const ok = await json("POST", `/threads/${id}/messages`, { content: "a \ud83d\ude00 b", script: [{ text: "ok" }] });
    expect(ok.status).toBe(202);
  });

  it("refuses bytes that are not UTF-8 with 400 naming the body and the byte, on every route that reads one, instead of storing U+FFFD", async () => {
    const enc = new TextEncoder();
    /** `before` + raw bytes + `after`, sent with or without a Content-Length (the direct-call lane takes only the first). */
    const send = (path: string, before: string, bad: number[], after: string, declared: boolean) => {
      const body = new Uint8Array([...enc.encode(before), ...bad, ...enc.encode(after)]);
      const headers: Record<string, string> = { "content-type": "application/json", ...(declared ? { "content-length": String(body.byteLength) } : {}) };
      return request(path, { method: "POST", headers, body: declared ? body : new Blob([body]).stream() });
    };
    const refusedAt = async (res: Response, offset: number) => {
      const body = await res.json<any>();
      expect([res.status, body.error.code, body.error.details]).toEqual([400, "invalid_request", { in: "body", offset }]);
      expect(body.error.message).toBe(`body: not valid UTF-8 (byte ${offset} is not part of a UTF-8 character); send the body as UTF-8`);
    };
    const id = await createThread({ agent: "robustness" });
    for (const declared of [true, false]) {
      // A stray continuation byte, an overlong NUL, and a surrogate encoded in UTF-8 (CESU).
      await refusedAt(await send(`/threads/${id}/messages`, '{"content":"a ', [0xff], ' b"}', declared), 14);
      await refusedAt(await send(`/v1/tools/record_call`, `{"sessionId":"${id}","input":{"note":"`, [0xc0, 0x80], '"}}', declared), 97);
      await refusedAt(await send("/threads", '{"arguments":{"k":"', [0xed, 0xa0, 0x80], '"}}', declared), 19);
    }
    expect(await messagesOf(id)).toEqual([]);
    expect((await json("GET", `/threads/${id}/calls`)).body.calls).toEqual([]);
    // Well-formed UTF-8 (and a leading BOM, dropped) is text like any other.
    const fine = await send(`/v1/tools/record_call`, `\ufeff{"sessionId":"${id}","input":{"note":"h\u00e9 \ud83d\ude00"}}`, [], "", true);
    expect(fine.status).toBe(200);
    expect(JSON.parse((await fine.json<any>()).result)).toEqual({ note: "h\u00e9 \ud83d\ude00" });
  });

  it("ignores a body on a GET (some clients send one, as `curl -X GET -d` does) instead of answering 500", async () => {
    const id = await createThread();
    for (const path of [`/threads/${id}`, `/threads/${id}/schedules`, `/threads/${id}/usage`, "/account/usage", "/threads", "/schedules/files"]) {
      const res = await request(path, { method: "GET", headers: { "content-type": "application/json", "content-length": "2" } });
      expect(res.status, path).toBe(200);
    }
  });

  it("refuses a lone surrogate in an object key", async () => {
    const res = await json("POST", "/threads", `{"arguments":{"\\udc00x":1}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.path).toEqual(["arguments", "\udc00x"]);
  });
});

describe("query strings and env values a new user gets wrong", () => {
  it("answers GET /threads?limit=0 with 400 naming limit, not a 500", async () => {
    const res = await json("GET", "/threads?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: ["limit"] } });
    expect(res.body.error.message).toBe("limit: expected a page size from 1 to 200 (default 50)");
    expect((await json("GET", "/threads?limit=1")).status).toBe(200);
  });

  it("refuses a page over a list's largest the same way on every list, instead of quietly shrinking it", async () => {
    const id = await createThread();
    for (const [path, max, fallback] of [
      ["/threads", 200, 50],
      [`/threads/${id}/messages`, 1000, 100],
    ] as const) {
      // Not a whole number at all says the same range: "0 or more" would send a user to try 0.
      for (const limit of [0, max + 1, 500_000, "abc", "1.5", "-1", "1e2"]) {
        const res = await json("GET", `${path}?limit=${limit}`);
        expect([path, limit, res.status]).toEqual([path, limit, 400]);
        expect(res.body.error).toMatchObject({
          code: "invalid_request",
          message: `limit: expected a page size from 1 to ${max} (default ${fallback})`,
          details: { path: ["limit"] },
        });
      }
      expect((await json("GET", `${path}?limit=${max}`)).status).toBe(200);
    }
  });

  it("names a bad whole-number parameter once, and says what it takes", async () => {
    const id = await createThread();
    for (const [param, value] of [["after", "abc"], ["offset", "-5"], ["maxDepth", "-1"], ["before", "1.5"]] as const) {
      const res = await json("GET", `/threads/${id}/messages?${param}=${value}`);
      expect(res.status, param).toBe(400);
      expect(res.body.error.message, param).toBe(`${param}: expected a whole number (0 or more)`);
      expect(res.body.error.details.path).toEqual([param]);
    }
  });

  it("names a WebSocket parameter given twice, as on every other route, instead of taking the first", async () => {
    const id = await createThread();
    for (const param of ["since", "batch"]) {
      const res = await request(`/threads/${id}/ws?${param}=1&${param}=0`, { headers: { upgrade: "websocket" } });
      expect([param, res.status]).toEqual([param, 400]);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: "invalid_request", message: `${param}: given more than once; give it once`, details: { path: [param] } });
    }
  });

  it("says what a cursor is when ?cursor= is empty, as when it is garbage", async () => {
    for (const cursor of ["", "zzz"]) {
      const res = await json("GET", `/threads?cursor=${cursor}`);
      expect([cursor, res.status]).toEqual([cursor, 400]);
      expect(res.body.error).toMatchObject({ code: "invalid_request", message: "cursor: not a cursor from a previous page", details: { path: ["cursor"] } });
    }
  });

  it("names a query parameter given twice", async () => {
    const id = await createThread();
    const res = await json("GET", `/threads/${id}/messages?limit=1&limit=2`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", message: "limit: given more than once; give it once", details: { path: ["limit"] } });
  });

  it("says what an env value may be", async () => {
    for (const env of [{ A: 5 }, { A: { value: "x", type: "weird" } }]) {
      const res = await json("POST", "/threads", { env });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('env.A: expected a string, or { "value": string, "type"?: "text" | "secret" }');
      expect(res.body.error.details.path).toEqual(["env", "A"]);
    }
  });

  it("refuses a misspelt field of POST /threads and of a message by name, instead of using the default", async () => {
    const typo = await json("POST", "/threads", { agnet: "desk" });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: "invalid_request", details: { path: ["agnet"] } });
    expect(typo.body.error.message).toBe("agnet: unknown field; the fields are agent, arguments, script, env, dryRun, asOf, history and continuationToken");
    const id = await createThread();
    const posted = await json("POST", `/threads/${id}/messages`, { content: "hi", scirpt: [{ text: "ok" }] });
    expect(posted.status).toBe(400);
    expect(posted.body.error.message).toBe("scirpt: unknown field; the fields are content, role, script and modelSettings");
    expect(await messagesOf(id)).toEqual([]);
    // A field naming a person is still accepted and ignored: the verified caller owns the thread.
    const owned = await json("POST", "/threads", { userId: "bob" });
    expect([owned.status, owned.body.userId]).toEqual([201, "tester"]);
  });
});
