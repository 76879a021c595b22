/**
 * The only `fetch` the MCP client gets: requests go to the server's own origin and nowhere else
 * (so its headers and token never reach another host), redirects are never followed, and an
 * answer larger than its cap, or still streaming past its deadline, fails and is cut instead of
 * filling the Durable Object's memory or holding a connection open without end.
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { mediaTypeEssence } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { JSONRPCResponseSchema } from "@modelcontextprotocol/sdk/types.js";
import { createParser } from "eventsource-parser";
import { WeftError } from "../errors.js";

/** Largest answer body weft reads from a remote server (a tool list or a call's result), in bytes. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Largest HTTP+SSE session stream weft reads, in bytes: that one stream carries every answer of
 * the session (it lasts while requests are under way), so it holds a few answers' worth.
 */
export const MAX_SESSION_STREAM_BYTES = 4 * MAX_ANSWER_BYTES;

/** Told when an answer of the request under way in this async context is cut (see {@link failingOnCut}). */
const cutHandlers = new AsyncLocalStorage<(error: WeftError) => void>();

/**
 * Runs `request` (given a signal to pass the MCP SDK) so that an answer of it that a guarded fetch
 * cuts rejects it with the cut's error. The SDK rejects a cut JSON answer itself, but reports a
 * cut event stream (the SDK server's default answer) only to `onerror` and leaves the request
 * waiting: without this a 10 MiB answer failed at its deadline, retried, as a timeout.
 */
export async function failingOnCut<T>(request: (cut: AbortSignal) => Promise<T>): Promise<T> {
  const cut = new AbortController();
  // A cut told after the answer arrived changes nothing (aborting then would send the server a cancellation).
  let settled = false;
  try {
    return await cutHandlers.run((error) => settled || cut.abort(error), () => request(cut.signal));
  } catch (e) {
    // The SDK wraps an abort's reason in its own timeout error: the cut's own error says why.
    throw cut.signal.aborted ? cut.signal.reason : e;
  } finally {
    settled = true;
  }
}

/** What the MCP SDK calls as `fetch`. */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch bound to `serverUrl`'s origin.
 * - A request to any other origin is refused (`mcp_refused`) before it is sent.
 * - A 3xx answer is refused (`mcp_refused`, naming where it pointed), never followed.
 * - A GET (Streamable HTTP's optional server-to-client event stream) is answered 405 here: weft
 *   asks and reads answers, and keeps no stream open in the Durable Object. With `stream` (the
 *   HTTP+SSE transport, whose answers all come on that stream) the GET is sent.
 * - A body longer than `maxBytes` errors with `mcp_protocol_error` once the cap is passed (the
 *   session stream of `stream`: {@link MAX_SESSION_STREAM_BYTES}).
 * - An answer body still open `maxMs` after its request was sent errors with `mcp_unreachable`
 *   (a server that streams keep-alives without end); the session stream of `stream` ends with
 *   its session instead (closed once no request is under way, each request under its deadline).
 * - Either way the server's stream is cancelled: nothing more of it is read.
 * - A network failure throws `mcp_unreachable`; so does an event stream that ends before its answer (the server went away).
 */
export function guardedFetch(serverUrl: URL, maxBytes = MAX_ANSWER_BYTES, stream = false, maxMs = Infinity): GuardedFetch {
  const origin = serverUrl.origin;
  return async (input, init) => {
    const target = new URL(String(input));
    if (target.origin !== origin) {
      throw new WeftError("mcp_refused", `refused a request to ${target.origin}: the server was declared at ${origin}, and its headers go nowhere else`, { origin: target.origin });
    }
    const get = (init?.method ?? "GET").toUpperCase() === "GET";
    if (get && !stream) return new Response(null, { status: 405 });
    const sent = Date.now();
    let response: Response;
    try {
      response = await fetch(target, { ...init, redirect: "manual" });
    } catch (e) {
      if (init?.signal?.aborted) throw e;
      throw new WeftError("mcp_unreachable", `${origin} could not be reached: ${e instanceof Error ? e.message : String(e)}`, { origin });
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location") ?? "(no location)";
      throw new WeftError("mcp_refused", `${origin} answered ${response.status}, a redirect to ${location}; weft follows no redirect of an MCP server`, { origin, location });
    }
    // The HTTP+SSE transport's one stream carries every answer of the session: its own byte cap,
    // and no deadline of one answer (it lasts while requests are under way, each under its own).
    return get ? capped(response, MAX_SESSION_STREAM_BYTES, Infinity, origin) : capped(response, maxBytes, maxMs - (Date.now() - sent), origin, cutHandlers.getStore(), requestIdOf(init?.body));
  };
}

/** The JSON-RPC id of the request a POST body holds; undefined for a notification (no answer is due) or anything else. */
function requestIdOf(body: unknown): string | number | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const id = (JSON.parse(body) as { id?: unknown } | null)?.id;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `response` whose body errors once more than `maxBytes` have passed (a declared length is
 * checked first) or once it is still open after `maxMs`; then the server's stream is cancelled
 * and `onCut` is told why. With `asked` (the request's JSON-RPC id), an event stream that ends
 * without that request's answer tells `onCut` too; one that carried the answer (within the cap) is
 * only closed by a cut after it, so the call keeps its answer.
 */
export function capped(response: Response, maxBytes: number, maxMs: number, origin: string, onCut?: (error: WeftError) => void, asked?: string | number): Response {
  const tooLarge = () => new WeftError("mcp_protocol_error", `${origin} answered more than ${maxBytes} bytes (the limit of one answer)`, { origin, limit: maxBytes });
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return response;
  const reader = response.body.getReader();
  let seen = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Set once the body ended either way: a read still under way when a cap ended it is dropped.
  let ended = false;
  // The SDK leaves a request waiting when its event stream ends without the answer (the server went
  // away): such a request fails now, not at its deadline.
  // Its media type read as the SDK reads it: a JSON answer naming text/event-stream in a parameter is JSON.
  const events = onCut !== undefined && asked !== undefined && mediaTypeEssence(response.headers.get("content-type")) === "text/event-stream" ? answerWatch(asked) : undefined;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, error: WeftError) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    void reader.cancel(error).catch(() => undefined);
    // A cut after the answer fails nothing: the stream ends as if the server closed it, so the
    // answer still on its way to the SDK (an errored stream drops what it holds) settles the call.
    if (events?.answered) return controller.close();
    controller.error(error);
    onCut?.(error);
  };
  const broke = (why: string) => {
    if (events && !events.answered) onCut?.(new WeftError("mcp_unreachable", `${origin} ${why} before answering the request`, { origin }));
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (maxMs === Infinity) return;
      const ms = Math.max(0, maxMs);
      timer = setTimeout(() => end(controller, new WeftError("mcp_unreachable", `${origin} kept its answer open past ${ms} ms (its deadline); it was cut`, { origin, limitMs: ms })), ms);
    },
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        controller.error(e);
        broke(`broke off its event stream (${e instanceof Error ? e.message : String(e)})`);
        return;
      }
      if (ended) return;
      if (chunk.done) {
        ended = true;
        clearTimeout(timer);
        controller.close();
        broke("closed its event stream");
        return;
      }
      seen += chunk.value.byteLength;
      if (seen > maxBytes) {
        // The bytes within the cap may end with the answer: they are passed on, nothing after them.
        const within = chunk.value.subarray(0, chunk.value.byteLength - (seen - maxBytes));
        events?.see(within);
        if (events?.answered) controller.enqueue(within);
        return end(controller, tooLarge());
      }
      events?.see(chunk.value);
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      ended = true;
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Reads an event stream's bytes as they pass (eventsource-parser, the parser the MCP SDK reads them
 * with) and says once an event carried the answer to request `asked` (a message with its `id` and a
 * `result` or `error`) in a form the SDK passes on: a `message` (or untyped) event of one message,
 * not a batch; an answer to another id the SDK drops. What it buffers is bounded by the answer's
 * cap, which ends the stream first.
 */
function answerWatch(asked: string | number): { see(bytes: Uint8Array): void; readonly answered: boolean } {
  const decoder = new TextDecoder();
  let answered = false;
  // An answer by the SDK's own schema (it drops any other: "jsonrpc": "2.0", an id string or
  // integer, a result object or an error), ids compared as it matches one to its request: as numbers.
  const isAnswer = (m: unknown) => JSONRPCResponseSchema.safeParse(m).success && Number((m as { id?: unknown }).id) === Number(asked);
  const parser = createParser({
    onEvent(event) {
      if (event.event !== undefined && event.event !== "message") return;
      let message: unknown = null;
      try {
        message = JSON.parse(event.data);
      } catch {
        // Not JSON: no answer.
      }
      if (isAnswer(message)) answered = true;
    },
  });
  return {
    get answered() {
      return answered;
    },
    see(bytes) {
      if (!answered) parser.feed(decoder.decode(bytes, { stream: true }));
    },
  };
}
