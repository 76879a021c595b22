/**
 * `POST /threads/:id/chat` posts a message as `POST /threads/:id/messages` does, so the same
 * deployment limit holds there: a message over `WEFT_MAX_MESSAGE_BYTES` (as stored, its JSON
 * text) is refused with 413 naming where it came from, and nothing is written.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, createThread, messagesOf } from "../helpers.js";

const app = createApp(registry);
/** The test Worker's bindings with a message limit of 100 bytes. */
const vars = { ...(env as unknown as Record<string, unknown>), WEFT_MAX_MESSAGE_BYTES: "100" };

function post(path: string, body: unknown): Promise<Response> {
  const headers = { "content-type": "application/json", authorization: `Bearer ${API_KEYS.tester}` };
  return Promise.resolve(app.fetch(new Request(`http://weft.test${path}`, { method: "POST", headers, body: JSON.stringify(body) }), vars as never));
}

describe("POST /threads/:id/chat and WEFT_MAX_MESSAGE_BYTES", () => {
  it("refuses a message over the configured limit with 413, as POST /threads/:id/messages does, and stores nothing", async () => {
    const id = await createThread();
    const viaMessages = await post(`/threads/${id}/messages`, { content: "x".repeat(1000), script: [{ text: "ok" }] });
    expect(viaMessages.status).toBe(413);
    const res = await post(`/threads/${id}/chat`, { messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "y".repeat(1000) }] }], script: [{ text: "ok" }] });
    const body = await res.json<any>();
    expect([res.status, body.error?.code, body.error?.details?.path]).toEqual([413, "payload_too_large", ["messages", 0, "parts"]]);
    expect(body.error.message).toMatch(/WEFT_MAX_MESSAGE_BYTES/);
    expect(await messagesOf(id)).toEqual([]);
    // Within the limit the chat route posts as before.
    const ok = await post(`/threads/${id}/chat`, { messages: [{ id: "m2", role: "user", parts: [{ type: "text", text: "hi" }] }], script: [{ text: "ok" }] });
    expect(ok.status).toBe(200);
    await ok.text();
    expect((await messagesOf(id)).map((m) => [m.role, m.content])).toEqual([["user", "hi"], ["assistant", "ok"]]);
  });
});
