/**
 * Review (remote MCP): the answer watch of `capped` decides, from the bytes of a call's answer,
 * whether the MCP SDK got its answer; when the body ends without one, `failingOnCut` fails the call
 * as `mcp_unreachable` (retried for a read, a failure recorded for a write). The watch must read
 * the answer as the SDK does, or a server (its endpoint is the user's to name) makes weft fail a
 * call the SDK got the answer of, or wait to the deadline for one it will never get.
 *
 * Here the server is a stub of the Worker's outbound `fetch`, driven by the SDK's own client
 * through weft's guarded fetch, as src/remote/connection.ts drives it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { failingOnCut, guardedFetch } from "../../src/remote/fetch.js";
import { stubOrigin, unstubOrigin } from "./origin-stubs.js";

const ORIGIN = "https://watch.review.test";
const ANSWER_MS = 3_000;

/** A server that initializes as usual and answers `tools/call` with `answer(id)`. */
function serve(answer: (id: number) => Response): void {
  stubOrigin(ORIGIN, async (_input, init) => {
    const message = JSON.parse(String(init?.body)) as { id?: number; method: string };
    if (message.id === undefined) return new Response(null, { status: 202 });
    if (message.method === "initialize") {
      const result = { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "watch", version: "1" } };
      return Response.json({ jsonrpc: "2.0", id: message.id, result }, { headers: { "mcp-session-id": "s" } });
    }
    return answer(message.id);
  });
}

const text = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] } });

async function call(): Promise<{ ok: true; text: string } | { ok: false; error: string; ms: number }> {
  const url = new URL(`${ORIGIN}/mcp`);
  const client = new Client({ name: "weft", version: "1" }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: guardedFetch(url, 1024 * 1024, false, ANSWER_MS) }));
  const started = Date.now();
  try {
    const result = await failingOnCut((cut) => client.callTool({ name: "write", arguments: {} }, undefined, { signal: cut, timeout: 8_000 }));
    return { ok: true, text: (result.content as { text: string }[])[0]!.text };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e), ms: Date.now() - started };
  } finally {
    await client.close();
  }
}

afterEach(() => unstubOrigin(ORIGIN));

describe("the answer watch reads an answer as the MCP SDK does", () => {
  it("a JSON answer whose content type names text/event-stream in a parameter is the call's answer, not a stream that broke off", async () => {
    // The SDK reads the media type (application/json) and parses the body as JSON; the watch saw
    // "text/event-stream" somewhere in the header, found no event in it, and cut the call.
    serve((id) => new Response(text(id), { headers: { "content-type": 'application/json; profile="text/event-stream"' } }));
    expect(await call()).toEqual({ ok: true, text: "done" });
  });

  it("an event stream whose content type is in capitals that ends without an answer fails at once, not at the deadline", async () => {
    // Media types are case-insensitive: the SDK reads this stream; the watch must watch it too.
    serve(() => new Response(": keep-alive\n\n", { headers: { "content-type": "Text/Event-Stream" } }));
    const answer = await call();
    expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/before answering the request/) });
    expect((answer as { ms: number }).ms).toBeLessThan(ANSWER_MS);
  });

  it("an answer under an event type the SDK does not read, then the end, fails at once as the server going away", async () => {
    // The SDK passes on only `message` events (or untyped ones): this answer never reached it.
    serve((id) => new Response(`event: other\ndata: ${text(id)}\n\n`, { headers: { "content-type": "text/event-stream" } }));
    const answer = await call();
    expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/before answering the request/) });
    expect((answer as { ms: number }).ms).toBeLessThan(ANSWER_MS);
  });

  it("a batch holding an answer, which the SDK's event stream reader refuses, then the end, fails at once", async () => {
    serve((id) => new Response(`data: [${text(id)}]\n\n`, { headers: { "content-type": "text/event-stream" } }));
    const answer = await call();
    expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/before answering the request/) });
    expect((answer as { ms: number }).ms).toBeLessThan(ANSWER_MS);
  });

  it("an answer to another request's id, then the end, fails at once: the SDK drops it and would wait for its own", async () => {
    serve((id) => new Response(`event: message\ndata: ${text(id + 1000)}\n\n`, { headers: { "content-type": "text/event-stream" } }));
    const answer = await call();
    expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/before answering the request/) });
    expect((answer as { ms: number }).ms).toBeLessThan(ANSWER_MS);
  });

  it("an answer as a message event is the call's answer (the watch still sees it)", async () => {
    serve((id) => new Response(`event: message\ndata: ${text(id)}\n\n`, { headers: { "content-type": "text/event-stream; charset=utf-8" } }));
    expect(await call()).toEqual({ ok: true, text: "done" });
  });

  it("an answer followed at once by bytes past the cap is the call's answer: the cut after it fails nothing", async () => {
    // The answer's chunk goes on to the SDK, which settles the call a few steps later; the next
    // chunk, already there, passes the cap first, and its cut failed the answered call.
    const tail = new Uint8Array(1024 * 1024 + 1).fill(0x20);
    serve((id) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${text(id)}\n\n`));
          controller.enqueue(tail);
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    expect(await call()).toEqual({ ok: true, text: "done" });
  });

  it("an answer and bytes past the cap in one chunk is the call's answer when the answer itself is within the cap", async () => {
    serve((id) => {
      const answer = new TextEncoder().encode(`event: message\ndata: ${text(id)}\n\n`);
      const chunk = new Uint8Array(1024 * 1024 + 1);
      chunk.set(answer);
      chunk.fill(0x20, answer.byteLength);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    expect(await call()).toEqual({ ok: true, text: "done" });
  });

  it("an answer whose event ends past the cap fails as too large: only bytes within the cap answer", async () => {
    serve((id) => {
      // The answer's line, and the blank line that ends its event just past the cap.
      const answer = new TextEncoder().encode(`event: message\ndata: ${text(id)}\n`);
      const chunk = new Uint8Array(1024 * 1024 + 2).fill(0x20);
      chunk.set(answer);
      chunk.set([0x0a, 0x0a], 1024 * 1024);
      chunk[answer.byteLength] = 0x3a; // the padding is a comment line: ": ...\n"
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    expect(await call()).toMatchObject({ ok: false, error: expect.stringMatching(/answered more than 1048576 bytes/) });
  });

  // review (h33d): the watch took as an answer what the SDK refuses (its JSONRPCMessageSchema: a
  // "jsonrpc": "2.0", an id string or integer, a result object or an error of code and message).
  const unversioned = (id: number) => JSON.stringify({ id, result: { content: [{ type: "text", text: "done" }] } });

  it("an answer the SDK refuses (no jsonrpc), then bytes past the cap, fails at once as too large, not at the deadline", async () => {
    const tail = new Uint8Array(1024 * 1024 + 1).fill(0x20);
    serve((id) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${unversioned(id)}\n\n`));
          controller.enqueue(tail);
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const answer = await call();
    expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/answered more than 1048576 bytes/) });
    expect((answer as { ms: number }).ms).toBeLessThan(ANSWER_MS);
  });

  it("an answer the SDK refuses (an id true: Number(true) is the call's id 1; a result not an object), then the end, fails at once", async () => {
    for (const bad of [(id: number) => JSON.stringify({ jsonrpc: "2.0", id: id === 1, result: { content: [] } }), (id: number) => JSON.stringify({ jsonrpc: "2.0", id, result: "done" })]) {
      serve((id) => new Response(`data: ${bad(id)}\n\n`, { headers: { "content-type": "text/event-stream" } }));
      const answer = await call();
      expect(answer).toMatchObject({ ok: false, error: expect.stringMatching(/before answering the request/) });
      expect((answer as { ms: number }).ms).toBeLessThan(ANSWER_MS);
      unstubOrigin(ORIGIN);
    }
  });
});
