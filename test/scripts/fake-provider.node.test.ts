/**
 * The fake provider's streams that end badly, over real HTTP (as the e2e tests and `bfcl --via`
 * reach it): each is what its wire format sends, and a request's history is still checked by the
 * wire format's validator before any step is played.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STALL_MS, createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";

const fake = createFakeProvider();
let server: { url: string; close(): Promise<void> };
beforeAll(async () => {
  server = await serveFakeProvider(fake);
});
afterAll(() => server.close());

const PATHS = { chat: "/v1/chat/completions", responses: "/v1/responses", anthropic: "/v1/messages" } as const;
const BODIES = {
  chat: { model: "m", stream: true, messages: [{ role: "user", content: "go" }] },
  responses: { model: "m", stream: true, input: [{ role: "user", content: "go" }] },
  anthropic: { model: "m", stream: true, max_tokens: 10, messages: [{ role: "user", content: "go" }] },
};

function post(format: keyof typeof PATHS, key: string, body: unknown = BODIES[format], signal?: AbortSignal) {
  return fetch(`${server.url}${PATHS[format]}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
}

/** Reads a body to its end, or to the error that ended it. */
async function read(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += decoder.decode(next.value, { stream: true });
    return { text, error: null };
  } catch (e) {
    return { text, error: e };
  }
}

describe("fake provider: streams that end badly", () => {
  it("resetAfterEvents: the client gets the first events, then its read fails (the socket was reset)", async () => {
    fake.script("reset", [{ text: "abcdefghij", chunk: 2, resetAfterEvents: 3 }]);
    const { text, error } = await read(await post("chat", "reset"));
    expect(text).toContain('"content":"ab"');
    expect(text).not.toContain('"content":"ef"');
    expect(error).not.toBeNull();
  });

  it("noFinish: each format's finish events are left out, and the body closes cleanly", async () => {
    fake.script("nofinish", [{ text: "hi", noFinish: true }, { text: "hi", noFinish: true }, { text: "hi", noFinish: true }]);
    const chat = await read(await post("chat", "nofinish"));
    expect(chat.error).toBeNull();
    expect(chat.text).toContain('"content":"hi"');
    expect(chat.text).not.toMatch(/"finish_reason":"stop"|\[DONE\]/);
    expect((await read(await post("responses", "nofinish"))).text).not.toContain("response.completed");
    const anthropic = (await read(await post("anthropic", "nofinish"))).text;
    expect(anthropic).toContain("text_delta");
    expect(anthropic).not.toMatch(/message_delta|message_stop/);
  });

  it("malformedAfterEvents: a chunk that is not JSON, between whole ones", async () => {
    fake.script("malformed", [{ text: "abcd", chunk: 2, malformedAfterEvents: 2 }]);
    const lines = (await read(await post("chat", "malformed"))).text.split("\n\n").filter(Boolean);
    const bad = lines.filter((l) => l !== "data: [DONE]" && !(() => { try { return JSON.parse(l.replace(/^data: /, "")), true; } catch { return false; } })());
    expect(bad).toHaveLength(1);
    expect(lines.indexOf(bad[0]!)).toBe(2);
  });

  it('finishReason "length": Chat length, Responses response.incomplete (max_output_tokens), Anthropic max_tokens', async () => {
    const step = { toolCalls: [{ id: "c1", name: "t", arguments: '{"a":"unfini' }], finishReason: "length" as const };
    fake.script("length", [step, step, step]);
    expect((await read(await post("chat", "length"))).text).toContain('"finish_reason":"length"');
    const responses = (await read(await post("responses", "length"))).text;
    expect(responses).toContain("event: response.incomplete");
    expect(responses).toContain('"reason":"max_output_tokens"');
    expect((await read(await post("anthropic", "length"))).text).toContain('"stop_reason":"max_tokens"');
  });

  it("stall: after the first events only keep-alive comments come, until the client goes away", async () => {
    fake.script("stall", [{ text: "thinking", stall: { afterEvents: 2, keepAliveMs: 20 } }]);
    const abort = new AbortController();
    const res = await post("anthropic", "stall", undefined, abort.signal);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while ((text.match(/: keep-alive/g) ?? []).length < 3) text += decoder.decode((await reader.read()).value, { stream: true });
    abort.abort();
    const events = text.split("\n\n").filter((e) => e !== "" && !e.startsWith(": keep-alive"));
    expect(events).toHaveLength(2);
    expect(events[1]).toContain("content_block_start");
  });

  it("stall with forMs: a client that never goes away gets keep-alives for that long, then a clean end without the finish events", async () => {
    fake.script("stall-bounded", [{ text: "thinking", stall: { afterEvents: 2, keepAliveMs: 20, forMs: 300 } }]);
    const started = Date.now();
    const { text, error } = await read(await post("anthropic", "stall-bounded"));
    expect(error).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    // Ended by its own bound, not the default one.
    expect(Date.now() - started).toBeLessThan(MAX_STALL_MS);
    expect((text.match(/: keep-alive/g) ?? []).length).toBeGreaterThanOrEqual(2);
    expect(text).not.toContain("message_stop");
  });

  it("hold: the stream stops after its first events until the test releases its key, then ends whole", async () => {
    fake.script("held", [{ text: "held answer", hold: { afterEvents: 2 } }]);
    const res = await post("chat", "held");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const rest = (async () => {
      for (let next = await reader.read(); !next.done; next = await reader.read()) text += decoder.decode(next.value, { stream: true });
    })();
    for (const end = Date.now() + 60_000; fake.holding("held") === 0 && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.holding("held")).toBe(1);
    // Held: nothing past its first two events has been sent.
    const before = text;
    const release = () => fetch(`${server.url}/__fake/release`, { method: "POST", body: JSON.stringify({ key: "held" }) }).then((r) => r.json());
    expect(await release()).toEqual({ released: 1 });
    await rest;
    expect(before.split("\n\n").filter((e) => e !== "").length).toBeLessThanOrEqual(2);
    expect(before).not.toContain("data: [DONE]");
    expect(text).toContain('"content":"held answer"');
    expect(text).toContain("data: [DONE]");
    // A release before the stream reaches its hold counts too.
    fake.script("early", [{ text: "early answer", hold: { afterEvents: 1 } }]);
    await fetch(`${server.url}/__fake/release`, { method: "POST", body: JSON.stringify({ key: "early" }) });
    expect((await read(await post("chat", "early"))).text).toContain('"content":"early answer"');
  });

  it("a history the wire format refuses is answered 400 before any step is played, as before", async () => {
    fake.script("checked", [{ text: "cut", resetAfterEvents: 1 }, { text: "whole" }]);
    const bad = { model: "m", stream: true, messages: [{ role: "user", content: "go" }, { role: "tool", tool_call_id: "nope", content: "x" }] };
    const refused = await post("chat", "checked", bad);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error.message).toMatch(/invalid request history/);
    // The queued steps are untouched: the next valid request gets the reset one.
    expect((await read(await post("chat", "checked"))).error).not.toBeNull();
    expect((await read(await post("chat", "checked"))).text).toContain('"content":"whole"');
  });
});
