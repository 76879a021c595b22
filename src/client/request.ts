/**
 * HTTP plumbing of the typed client: one `fetch` per call with the bearer token, JSON in and out,
 * and every non-2xx answer thrown as a {@link WeftClientError} carrying the server's error body.
 * @module
 */
import type { ErrorCode } from "../errors.js";

/** How a client reaches weft. */
export interface ConnectionOptions {
  /** Base URL of the weft Worker, e.g. `http://localhost:8787` (a trailing slash is ignored). */
  url: string;
  /**
   * Bearer token: a JWT or a static API key (docs/authentication.md). Sent as
   * `Authorization: Bearer <token>`, and on WebSocket upgrades (where browsers cannot set headers)
   * as the subprotocol `weft.bearer.<base64url>` beside `weft`, never in the URL. Omit it against
   * a development-mode Worker.
   */
  token?: string;
  /** The `fetch` to use; default the global one (browsers, Node 18+, Workers). */
  fetch?: typeof fetch;
  /** The `WebSocket` constructor for `subscribe`; default the global one (browsers, Node 22+, Workers). */
  WebSocket?: unknown;
}

/**
 * An error answer from weft (`{ error: { code, message, details? } }`), or a transport failure
 * (`code` `network_error`, `status` 0) or an answer that is not weft's JSON (`bad_response`).
 */
export class WeftClientError extends Error {
  /** weft's error code (`invalid_tool_input`, `thread_not_found`, ...), or `network_error` / `bad_response`. */
  readonly code: ErrorCode | "network_error" | "bad_response";
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The error body's `details` (for validation errors: `path` and `issues`). */
  readonly details: Record<string, unknown> | undefined;

  /**
   * @param code weft's error code, or `network_error` / `bad_response`
   * @param message the error body's message, or what failed in transport
   * @param status the HTTP status, 0 when no answer arrived
   * @param details the error body's `details`
   */
  constructor(code: WeftClientError["code"], message: string, status: number, details?: Record<string, unknown>) {
    super(message);
    this.name = "WeftClientError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** Query values; `undefined` ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** `base + path + ?query`. */
export function urlOf(base: string, path: string, query: Query = {}): string {
  const url = new URL(base.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

/**
 * Sends one request (with `Idempotency-Key` when `idempotencyKey` is given) and parses weft's JSON answer.
 * @throws WeftClientError for any non-2xx status, a network failure, or a body that is not JSON.
 */
export async function request<T>(conn: ConnectionOptions, method: string, path: string, options: { body?: unknown; query?: Query; idempotencyKey?: string } = {}): Promise<T> {
  const res = await send(conn, method, path, "application/json", options);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    throw new WeftClientError("bad_response", `${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, res.status);
  }
  if (!res.ok) throw errorOf(res.status, parsed, `${method} ${path}`);
  return parsed as T;
}

/**
 * `GET path` for bytes (a thread's file): the body as sent, and its `content-type`.
 * @throws WeftClientError for any non-2xx status (weft's error body read as `request` reads it) or a network failure.
 */
export async function requestBytes(conn: ConnectionOptions, path: string): Promise<{ bytes: Uint8Array; contentType: string }> {
  const res = await send(conn, "GET", path, "*/*");
  if (!res.ok) {
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not weft's error body: errorOf says the status alone.
    }
    throw errorOf(res.status, parsed, `GET ${path}`);
  }
  return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get("content-type") ?? "application/octet-stream" };
}

/** One `fetch` with the bearer token; a failure to reach weft is `network_error`. */
async function send(conn: ConnectionOptions, method: string, path: string, accept: string, options: { body?: unknown; query?: Query; idempotencyKey?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { accept };
  // A repeat under the same key gets the first answer and acts once (the write routes that take one).
  if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
  if (conn.token) headers.authorization = `Bearer ${conn.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const doFetch = conn.fetch ?? fetch;
  try {
    return await doFetch(urlOf(conn.url, path, options.query), {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (e) {
    throw new WeftClientError("network_error", `${method} ${conn.url.replace(/\/+$/, "")}${path}: ${failureText(e)}`, 0);
  }
}

/** A fetch failure in words: Node's says only "fetch failed" and keeps why (`connect ECONNREFUSED ...`, or just its `code`) in `cause`. */
function failureText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause as { message?: unknown; code?: unknown } | undefined;
  const why = cause && (typeof cause.message === "string" && cause.message ? cause.message : typeof cause.code === "string" ? cause.code : "");
  return why ? `${e.message} (${why})` : e.message;
}

/** The {@link WeftClientError} for an error answer. */
export function errorOf(status: number, body: unknown, what: string): WeftClientError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (error && typeof error.code === "string" && typeof error.message === "string") {
    return new WeftClientError(error.code as ErrorCode, error.message, status, error.details as Record<string, unknown> | undefined);
  }
  return new WeftClientError("bad_response", `${what} answered ${status} without an error body`, status);
}
