/**
 * The only `fetch` the MCP client gets: requests go to the server's own origin and nowhere else
 * (so its headers and token never reach another host), redirects are never followed, and an
 * answer larger than its cap fails instead of filling the Durable Object's memory.
 * @module
 */
import { WeftError } from "../errors.js";

/** Largest answer body weft reads from a remote server (a tool list or a call's result), in bytes. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** What the MCP SDK calls as `fetch`. */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch bound to `serverUrl`'s origin.
 * - A request to any other origin is refused (`mcp_refused`) before it is sent.
 * - A 3xx answer is refused (`mcp_refused`, naming where it pointed), never followed.
 * - A GET (Streamable HTTP's optional server-to-client event stream) is answered 405 here: weft
 *   asks and reads answers, and keeps no stream open in the Durable Object. With `stream` (the
 *   HTTP+SSE transport, whose answers all come on that stream) the GET is sent.
 * - A body longer than `maxBytes` errors with `mcp_protocol_error` once the cap is passed.
 * - A network failure throws `mcp_unreachable`.
 */
export function guardedFetch(serverUrl: URL, maxBytes = MAX_ANSWER_BYTES, stream = false): GuardedFetch {
  const origin = serverUrl.origin;
  return async (input, init) => {
    const target = new URL(String(input));
    if (target.origin !== origin) {
      throw new WeftError("mcp_refused", `refused a request to ${target.origin}: the server was declared at ${origin}, and its headers go nowhere else`, { origin: target.origin });
    }
    const get = (init?.method ?? "GET").toUpperCase() === "GET";
    if (get && !stream) return new Response(null, { status: 405 });
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
    // The HTTP+SSE transport's one stream carries every answer of the session: capped by the
    // call deadlines and the session's life, not by one answer's cap.
    return get ? response : capped(response, maxBytes, origin);
  };
}

/** `response` whose body errors once more than `maxBytes` have passed (a declared length is checked first). */
function capped(response: Response, maxBytes: number, origin: string): Response {
  const tooLarge = () => new WeftError("mcp_protocol_error", `${origin} answered more than ${maxBytes} bytes (the limit of one answer)`, { origin, limit: maxBytes });
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return response;
  let seen = 0;
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}
