// @ts-check
/**
 * A fake model provider speaking three real wire formats with streaming, for tests and the
 * `bfcl --via` harness. It plays scripted steps, queued per API key (the bearer token, or
 * Anthropic's `x-api-key`), so each thread can own a key and its own script:
 *
 *   POST /v1/chat/completions  OpenAI Chat Completions (SSE chunks with tool-call argument deltas)
 *   POST /v1/responses         OpenAI Responses API (SSE events)
 *   POST /v1/messages          Anthropic Messages (SSE, `input_json_delta`)
 *   POST /__fake/script        `{ key, steps }` queues steps (used from inside workerd)
 *   POST /__fake/release       `{ key }` lets the key's held streams (`hold`) go on, and any it holds later
 *   GET  /__fake/requests?key= the request bodies a key sent, oldest first
 *   GET  /__fake/outbound?needle= every other request (any path, any host) whose URL, headers or
 *                              body contain `needle`: `{ url, method, headers, body }`, oldest first
 *
 * Every request's history is checked by the wire format's validator (wire-validators.mjs); an
 * invalid one is answered 400, as the real provider would.
 *
 * A step: `{ text?, toolCalls?: [{ id, name, arguments }], usage?: { input, output, cached, reasoning, cacheWrite },
 * chunk?: <characters per argument delta>, trailingEmptyArgs?: true, cutAfterEvents?: <n>,
 * delayMs?: <pause after each event>, network?: "close", providerCalls?: [{ id, query, urls }],
 * error?: { status, message, retryAfter? }, finishReason?: "length", noFinish?: true,
 * malformedAfterEvents?: <n>, malformedText?: <text>, resetAfterEvents?: <n>, stall?: { afterEvents, keepAliveMs, forMs? }, hold?: { afterEvents } }`.
 * `arguments` is sent byte for byte. `network: "close"`
 * answers nothing: over Node HTTP the connection is closed without a response; inside workerd the
 * outbound fetch fails as a network error. `providerCalls` are web searches the provider runs
 * itself, before the text (Responses `web_search_call`, Anthropic `server_tool_use` +
 * `web_search_tool_result`; Chat Completions has none).
 *
 * Streams that end badly, as real providers' sometimes do: `finishReason: "length"` ends the step
 * as cut by the output-token limit (Chat `length`, Responses `incomplete` with
 * `max_output_tokens`, Anthropic `max_tokens`); `noFinish` closes the stream cleanly without the
 * format's finish events; `malformedAfterEvents` sends a chunk that is not JSON after that many
 * events (`malformedText` its text, which a parse error quotes); `resetAfterEvents` fails the body (a connection reset) after that many events; `stall`
 * sends, after `afterEvents` events, only SSE keep-alive comments every `keepAliveMs` until the
 * client goes away, or for `forMs` (default {@link MAX_STALL_MS}), then closes the stream. Inside
 * workerd the client's going away never reaches this side (miniflare copies an answer to workerd
 * until its body ends), and a stream still open when the tests end holds their runtime's close
 * up: a step whose client gives up sooner says so in `forMs`. `hold` stops the stream after
 * `afterEvents` events until the test releases the key (`POST /__fake/release`), then goes on: a
 * test that must act while a request streams waits on that condition, not on a pace it hopes is
 * slow enough (at most {@link MAX_STALL_MS}, then the stream is reset).
 *
 * Usage goes in each format's own fields, as the real APIs report it: Chat `prompt_tokens`
 * (cache reads included, `prompt_tokens_details.cached_tokens`), `completion_tokens` (reasoning
 * included, `completion_tokens_details.reasoning_tokens`); Responses `input_tokens`
 * (`input_tokens_details.cached_tokens`), `output_tokens` (`output_tokens_details.reasoning_tokens`);
 * Anthropic `input_tokens` WITHOUT the cache (`cache_read_input_tokens` and
 * `cache_creation_input_tokens` beside it), `output_tokens` in `message_delta` with
 * `output_tokens_details.thinking_tokens`. `input` is the step's input tokens including cache reads
 * and writes in every format; `usage: "none"` reports no usage at all.
 * @module
 */
import http from "node:http";
import { validateAnthropic, validateChatCompletions, validateResponses } from "./wire-validators.mjs";

/**
 * @typedef {{ id: string, name: string, arguments: string }} FakeCall
 * @typedef {{ id: string, query: string, urls: string[] }} FakeSearch
 * @typedef {{ text?: string, toolCalls?: FakeCall[], providerCalls?: FakeSearch[], usage?: { input?: number, output?: number, cached?: number, reasoning?: number, cacheWrite?: number } | "none",
 *   chunk?: number, trailingEmptyArgs?: boolean, cutAfterEvents?: number, delayMs?: number, network?: "close",
 *   error?: { status: number, message: string, retryAfter?: string }, finishReason?: "length", noFinish?: boolean,
 *   malformedAfterEvents?: number, malformedText?: string, resetAfterEvents?: number, stall?: { afterEvents: number, keepAliveMs: number, forMs?: number }, hold?: { afterEvents: number } }} FakeStep
 */

/** Longest a stalled stream keeps sending keep-alives when the client never goes away. */
export const MAX_STALL_MS = 30_000;

/** Thrown by `handle` for a step that answers with a closed connection instead of a response. */
export class NetworkClose extends Error {
  constructor() {
    super("fake provider: connection closed without a response");
  }
}

/** Creates a fake provider; `handle` answers a WHATWG Request. */
export function createFakeProvider() {
  /** @type {Map<string, FakeStep[]>} */
  const queues = new Map();
  /** @type {Array<{ key: string, path: string, body: any }>} */
  const requests = [];
  /**
   * Every request that is not a `/__fake/` control request, whole, so a test can prove a value
   * (a canary credential) reached no host at all. Kept as sent: URL, headers, body text.
   * @type {Array<{ url: string, method: string, headers: Record<string, string>, body: string }>}
   */
  const outbound = [];
  /** Per key: the releases of its streams held now (`hold`). @type {Map<string, Set<() => void>>} */
  const held = new Map();
  /** Keys released: a release that comes before the stream reaches its hold still counts. @type {Set<string>} */
  const released = new Set();

  /** Queues steps for an API key. @param {string} key @param {FakeStep[]} steps */
  function script(key, steps) {
    queues.set(key, [...(queues.get(key) ?? []), ...steps]);
  }

  /** @param {Request} request @returns {Promise<Response>} */
  async function handle(request) {
    const url = new URL(request.url);
    if (url.pathname === "/__fake/script" && request.method === "POST") {
      const { key, steps } = await request.json();
      script(key, steps);
      return Response.json({ queued: steps.length });
    }
    if (url.pathname === "/__fake/release" && request.method === "POST") {
      const { key } = await request.json();
      released.add(key);
      const releases = [...(held.get(key) ?? [])];
      held.delete(key);
      for (const release of releases) release();
      return Response.json({ released: releases.length });
    }
    if (url.pathname === "/__fake/requests") {
      const key = url.searchParams.get("key");
      return Response.json(requests.filter((r) => r.key === key).map((r) => ({ path: r.path, body: r.body })));
    }
    if (url.pathname === "/__fake/outbound") {
      const needle = url.searchParams.get("needle") ?? "";
      const holds = (/** @type {typeof outbound[number]} */ r) => [r.url, r.body, ...Object.entries(r.headers).flat()].some((text) => text.includes(needle));
      return Response.json(needle === "" ? [] : outbound.filter(holds));
    }
    const key = (request.headers.get("authorization") ?? "").replace(/^Bearer /, "") || request.headers.get("x-api-key") || "";
    const text = request.method === "GET" || request.method === "HEAD" ? "" : await request.text().catch(() => "");
    outbound.push({ url: request.url, method: request.method, headers: Object.fromEntries(request.headers), body: text });
    const body = request.method === "POST" ? parseOrNull(text) : null;
    const format = url.pathname.endsWith("/chat/completions") ? "chat" : url.pathname.endsWith("/responses") ? "responses" : url.pathname.endsWith("/messages") ? "anthropic" : null;
    if (!format) return Response.json({ error: { message: `fake provider: no route ${url.pathname}` } }, { status: 404 });
    requests.push({ key, path: url.pathname, body });
    // Like the real APIs, refuse a history that breaks the wire format's tool-call rules.
    const problems = (format === "chat" ? validateChatCompletions : format === "responses" ? validateResponses : validateAnthropic)(body);
    if (problems.length > 0) {
      return Response.json({ error: { message: `invalid request history: ${problems.join("; ")}`, type: "invalid_request_error" } }, { status: 400 });
    }
    const step = queues.get(key)?.shift();
    if (!step) return Response.json({ error: { message: `fake provider: no scripted step left for key ${JSON.stringify(key)}` } }, { status: 400 });
    if (step.network === "close") throw new NetworkClose();
    if (step.error) {
      const headers = step.error.retryAfter !== undefined ? { "retry-after": step.error.retryAfter } : undefined;
      return Response.json({ error: { message: step.error.message, type: "fake_error" } }, { status: step.error.status, headers });
    }
    const all = format === "chat" ? chatEvents(step, body) : format === "responses" ? responsesEvents(step, body) : anthropicEvents(step, body);
    const events = step.noFinish ? all.filter((e) => !isFinishEvent(format, e)) : all;
    if (step.malformedAfterEvents !== undefined) events.splice(step.malformedAfterEvents, 0, step.malformedText === undefined ? MALFORMED_EVENT : `data: ${step.malformedText}\n\n`);
    const cut = step.cutAfterEvents !== undefined ? events.slice(0, step.cutAfterEvents) : events;
    const headers = { "content-type": "text/event-stream", "cache-control": "no-cache" };
    if (!step.delayMs && step.resetAfterEvents === undefined && !step.stall && !step.hold) return new Response(cut.join(""), { headers });
    return new Response(paced(cut, step, () => gate(key)), { headers });
  }

  /** A promise the release of `key` resolves (at once when it came already). @param {string} key @returns {Promise<void>} */
  function gate(key) {
    return new Promise((resolve) => {
      if (released.has(key)) return resolve();
      const releases = held.get(key) ?? new Set();
      held.set(key, releases.add(() => resolve()));
    });
  }

  /** How many of the key's streams wait at their hold now. @param {string} key */
  const holding = (key) => held.get(key)?.size ?? 0;

  return { handle, script, requests, outbound, holding };
}

/** @param {string} text @returns {any} the parsed JSON, or null when it is not JSON */
function parseOrNull(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A chunk that is not JSON, in every format's framing. */
const MALFORMED_EVENT = 'data: {"choices":[{"delta":{"content":"unterminated\n\n';

/**
 * Whether an event is one of its format's finish events: Chat's `finish_reason` chunk, usage
 * chunk and `[DONE]`; Responses' `response.completed`/`response.incomplete`; Anthropic's
 * `message_delta` and `message_stop`.
 * @param {"chat" | "responses" | "anthropic"} format @param {string} event
 */
function isFinishEvent(format, event) {
  if (format === "chat") return event === "data: [DONE]\n\n" || /"finish_reason":"[a-z_]+"/.test(event) || /"choices":\[\],"usage"/.test(event);
  if (format === "responses") return /^event: response\.(completed|incomplete)\n/.test(event);
  return /^event: message_(delta|stop)\n/.test(event);
}

/**
 * The body of a paced step: events one by one (`delayMs` apart), then a reset
 * (`resetAfterEvents`) or keep-alive comments only (`stall`) where the step asks for them; held
 * after `hold.afterEvents` until `released()` resolves.
 * @param {string[]} events @param {FakeStep} step @param {() => Promise<void>} released
 * @returns {ReadableStream<Uint8Array>}
 */
function paced(events, step, released) {
  const encoder = new TextEncoder();
  const delay = step.delayMs ?? 0;
  const pause = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
  let i = 0;
  /** @type {number | null} */
  let stalledAt = null;
  // Pulled one event at a time, so a reset comes after the client has read what came before it.
  return new ReadableStream({
    async pull(controller) {
      if (stalledAt !== null) {
        // Keep-alives only: the connection stays open, and no event ever comes.
        if (Date.now() - stalledAt >= (step.stall?.forMs ?? MAX_STALL_MS)) return controller.close();
        await pause(step.stall?.keepAliveMs ?? 1000);
        return controller.enqueue(encoder.encode(": keep-alive\n\n"));
      }
      if (i === step.resetAfterEvents) return controller.error(Object.assign(new Error("fake provider: connection reset"), { code: "ECONNRESET" }));
      if (step.stall && i === step.stall.afterEvents) {
        stalledAt = Date.now();
        return controller.enqueue(encoder.encode(": keep-alive\n\n"));
      }
      if (i >= events.length) return controller.close();
      if (step.hold && i === step.hold.afterEvents) {
        let timer;
        const timedOut = await Promise.race([released().then(() => false), new Promise((resolve) => (timer = setTimeout(() => resolve(true), MAX_STALL_MS)))]);
        clearTimeout(timer);
        if (timedOut) return controller.error(new Error(`fake provider: held ${MAX_STALL_MS} ms and never released`));
      }
      if (i > 0 && delay > 0) await pause(delay);
      controller.enqueue(encoder.encode(events[i]));
      i += 1;
    },
  }, { highWaterMark: 0 });
}

/**
 * Splits text into pieces of `size` characters (at least 1 piece, even for "").
 * @param {string} text @param {number | undefined} size @returns {string[]}
 */
function pieces(text, size) {
  if (!size || size <= 0 || text.length <= size) return [text];
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** @param {unknown} data @param {string} [event] */
const sse = (data, event) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

/**
 * A step's usage with the defaults (10 input, 5 output tokens), or null for `usage: "none"`.
 * @param {FakeStep} step
 */
function usageOf(step) {
  if (step.usage === "none") return null;
  const u = step.usage ?? {};
  return { input: u.input ?? 10, output: u.output ?? 5, cached: u.cached ?? 0, reasoning: u.reasoning ?? 0, cacheWrite: u.cacheWrite ?? 0 };
}

/** OpenAI Chat Completions chunks. @param {FakeStep} step @param {any} body */
function chatEvents(step, body) {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model: body?.model ?? "fake" };
  /** @param {unknown} delta @param {string | null} [finish] */
  const chunk = (delta, finish = null) => sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: "assistant", content: "" })];
  for (const piece of step.text ? pieces(step.text, step.chunk) : []) out.push(chunk({ content: piece }));
  (step.toolCalls ?? []).forEach((call, index) => {
    const parts = pieces(call.arguments, step.chunk);
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: parts[0] } }] }));
    for (const piece of parts.slice(1)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    if (step.trailingEmptyArgs) out.push(chunk({ tool_calls: [{ index, function: { arguments: "" } }] }));
  });
  out.push(chunk({}, step.finishReason === "length" ? "length" : (step.toolCalls ?? []).length > 0 ? "tool_calls" : "stop"));
  const u = usageOf(step);
  if (u) {
    const usage = { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output, prompt_tokens_details: { cached_tokens: u.cached }, completion_tokens_details: { reasoning_tokens: u.reasoning } };
    out.push(sse({ ...base, choices: [], usage }));
  }
  out.push("data: [DONE]\n\n");
  return out;
}

/** OpenAI Responses API events. @param {FakeStep} step @param {any} body */
function responsesEvents(step, body) {
  const response = { id: "resp_fake", object: "response", created_at: 1_700_000_000, model: body?.model ?? "fake", status: "in_progress", output: [] };
  const out = [sse({ type: "response.created", sequence_number: 0, response }, "response.created")];
  let index = 0;
  /** @type {unknown[]} */
  const output = [];
  for (const search of step.providerCalls ?? []) {
    out.push(sse({ type: "response.output_item.added", output_index: index, item: { type: "web_search_call", id: search.id, status: "in_progress" } }, "response.output_item.added"));
    const done = { type: "web_search_call", id: search.id, status: "completed", action: { type: "search", query: search.query, sources: search.urls.map((url) => ({ type: "url", url })) } };
    out.push(sse({ type: "response.output_item.done", output_index: index, item: done }, "response.output_item.done"));
    output.push(done);
    index += 1;
  }
  if (step.text) {
    const item = { type: "message", id: "msg_fake", role: "assistant", status: "in_progress", content: [] };
    out.push(sse({ type: "response.output_item.added", output_index: index, item }, "response.output_item.added"));
    for (const piece of pieces(step.text, step.chunk)) {
      out.push(sse({ type: "response.output_text.delta", item_id: item.id, output_index: index, content_index: 0, delta: piece, logprobs: [] }, "response.output_text.delta"));
    }
    const done = { ...item, status: "completed", content: [{ type: "output_text", text: step.text, annotations: [] }] };
    out.push(sse({ type: "response.output_item.done", output_index: index, item: done }, "response.output_item.done"));
    output.push(done);
    index += 1;
  }
  for (const call of step.toolCalls ?? []) {
    const item = { type: "function_call", id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: "", status: "in_progress" };
    out.push(sse({ type: "response.output_item.added", output_index: index, item }, "response.output_item.added"));
    for (const piece of pieces(call.arguments, step.chunk)) {
      out.push(sse({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: index, delta: piece }, "response.function_call_arguments.delta"));
    }
    out.push(sse({ type: "response.function_call_arguments.done", item_id: item.id, output_index: index, arguments: call.arguments }, "response.function_call_arguments.done"));
    const done = { ...item, arguments: call.arguments, status: "completed" };
    out.push(sse({ type: "response.output_item.done", output_index: index, item: done }, "response.output_item.done"));
    output.push(done);
    index += 1;
  }
  const u = usageOf(step);
  const usage = u ? { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning }, total_tokens: u.input + u.output } : null;
  if (step.finishReason === "length") {
    out.push(sse({ type: "response.incomplete", response: { ...response, status: "incomplete", output, usage, incomplete_details: { reason: "max_output_tokens" } } }, "response.incomplete"));
  } else out.push(sse({ type: "response.completed", response: { ...response, status: "completed", output, usage, incomplete_details: null } }, "response.completed"));
  return out;
}

/** Anthropic Messages events. @param {FakeStep} step @param {any} body */
function anthropicEvents(step, body) {
  const u = usageOf(step) ?? { input: 0, output: 0, cached: 0, reasoning: 0, cacheWrite: 0 };
  // Anthropic counts input without the prompt cache: reads and writes are reported beside it.
  const fresh = Math.max(0, u.input - u.cached - u.cacheWrite);
  const out = [
    sse(
      {
        type: "message_start",
        message: { id: "msg_fake", type: "message", role: "assistant", content: [], model: body?.model ?? "fake", stop_reason: null, stop_sequence: null, usage: { input_tokens: fresh, output_tokens: 1, cache_read_input_tokens: u.cached, cache_creation_input_tokens: u.cacheWrite } },
      },
      "message_start",
    ),
  ];
  let index = 0;
  for (const search of step.providerCalls ?? []) {
    out.push(sse({ type: "content_block_start", index, content_block: { type: "server_tool_use", id: search.id, name: "web_search", input: {} } }, "content_block_start"));
    out.push(sse({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify({ query: search.query }) } }, "content_block_delta"));
    out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    index += 1;
    const content = search.urls.map((url) => ({ type: "web_search_result", url, title: `Page at ${url}`, encrypted_content: `enc:${url}`, page_age: null }));
    out.push(sse({ type: "content_block_start", index, content_block: { type: "web_search_tool_result", tool_use_id: search.id, content } }, "content_block_start"));
    out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    index += 1;
  }
  if (step.text) {
    out.push(sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start"));
    for (const piece of pieces(step.text, step.chunk)) out.push(sse({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }, "content_block_delta"));
    out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    index += 1;
  }
  for (const call of step.toolCalls ?? []) {
    out.push(sse({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }, "content_block_start"));
    for (const piece of pieces(call.arguments, step.chunk)) {
      out.push(sse({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }, "content_block_delta"));
    }
    out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
    index += 1;
  }
  const stop = step.finishReason === "length" ? "max_tokens" : (step.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn";
  out.push(sse({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output, ...(u.reasoning ? { output_tokens_details: { thinking_tokens: u.reasoning } } : {}) } }, "message_delta"));
  out.push(sse({ type: "message_stop" }, "message_stop"));
  return out;
}

/**
 * Serves a fake provider over Node HTTP on 127.0.0.1.
 * @param {ReturnType<typeof createFakeProvider>} fake
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function serveFakeProvider(fake, port = 0) {
  const server = http.createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = Buffer.concat(chunks);
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: /** @type {any} */ (req.headers),
        ...(body.length > 0 ? { body } : {}),
      });
      const response = await fake.handle(request);
      /** @type {Record<string, string>} */
      const headers = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      res.writeHead(response.status, headers);
      if (!response.body) return void res.end();
      // Streamed as it comes, so paced steps keep their timing; a body that fails resets the socket.
      const reader = response.body.getReader();
      res.on("close", () => void reader.cancel().catch(() => undefined));
      try {
        // Each write handed to the socket before the next read, so a reset comes after what was sent.
        for (let next = await reader.read(); !next.done; next = await reader.read()) await new Promise((resolve) => res.write(next.value, resolve));
        res.end();
      } catch {
        req.socket.destroy();
      }
    } catch (e) {
      if (e instanceof NetworkClose) {
        req.socket.destroy();
        return;
      }
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(e) } }));
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}
