/**
 * Request checks as Hono middleware: bodies must be JSON (415 otherwise) and within the body
 * limit (413), then the route's zod schema validates body or query (`invalid_request` naming the
 * path). Nothing reaches a thread before these pass, so a refused request changes nothing. The
 * same schemas describe the bodies and query strings in `GET /openapi.json`.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { validator } from "hono/validator";
import type { z } from "zod";
import { WeftError, quotedValue } from "../errors.js";
import { checkJsonShape } from "../json-shape.js";
import { limitOf } from "../limits.js";
import { perEnv } from "../per-env.js";
import { describeIssues } from "../tools/schema.js";
import type { AuthedEnv } from "./auth.js";
import { documented } from "./openapi.js";

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

function hasBody(req: Request): boolean {
  const length = req.headers.get("content-length");
  return length !== null ? length !== "0" : req.body !== null;
}

/**
 * Refuses a request body that is not `application/json` (415) or is over `WEFT_MAX_BODY_BYTES`
 * (413). A cross-site form or `text/plain` post therefore never reaches a route.
 */
export function requestBodies(): MiddlewareHandler<AuthedEnv> {
  return async function checkBody(c, next) {
    // A GET or HEAD body has no meaning (RFC 9110 9.3.1) and no route reads one: it is ignored,
    // not wrapped into a fresh request (which a GET cannot have).
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const body = checkBodyHeaders(c.req.raw, c.env);
    if (body === "none") return next();
    // Read whole (within the limit) and checked as UTF-8 before any route sees it; the routes
    // then read the same bytes again from a fresh request.
    const utf8 = async () => {
      let bytes: ArrayBuffer;
      try {
        bytes = await c.req.raw.arrayBuffer();
      } catch {
        // The client went away mid-body (or it was read already): nothing to parse.
        throw new WeftError("invalid_json", "request body could not be read to its end");
      }
      decodeUtf8Body(bytes);
      c.req.raw = new Request(c.req.raw, { body: bytes });
      await next();
    };
    return body === "streamed" ? bodyLimitOf(c.env).middleware(c, utf8) : utf8();
  };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * A request body's text, decoded as UTF-8 strictly (a leading BOM dropped, as `Request.text()`
 * drops it). Bytes that are not UTF-8 are refused rather than stored as U+FFFD, as a lone
 * surrogate in the JSON text is refused (src/json-shape.ts).
 * @throws WeftError `invalid_request` (400) naming the body and the offset of the first bad byte.
 */
export function decodeUtf8Body(bytes: ArrayBuffer | Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const offset = firstBadUtf8Byte(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
    throw new WeftError("invalid_request", `body: not valid UTF-8 (byte ${offset} is not part of a UTF-8 character); send the body as UTF-8`, { in: "body", offset });
  }
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629), or the length. */
function firstBadUtf8Byte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const x = b[i]!;
    const [n, lo, hi] = x < 0x80 ? [0, 0, 0] : x >= 0xc2 && x <= 0xdf ? [1, 0x80, 0xbf] : x === 0xe0 ? [2, 0xa0, 0xbf] : x === 0xed ? [2, 0x80, 0x9f] : x >= 0xe1 && x <= 0xef ? [2, 0x80, 0xbf] : x === 0xf0 ? [3, 0x90, 0xbf] : x >= 0xf1 && x <= 0xf3 ? [3, 0x80, 0xbf] : x === 0xf4 ? [3, 0x80, 0x8f] : [-1, 0, 0];
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      const y = b[i + k];
      if (y === undefined || y < (k === 1 ? lo : 0x80) || y > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return b.length;
}

/**
 * The checks of {@link requestBodies} that the headers decide: a body must be JSON (415), and a
 * declared length within `WEFT_MAX_BODY_BYTES` (413). Says whether the request has no body, one
 * of a declared length (the runtime holds the stream to it, so nothing is left to count), or a
 * streamed (chunked) one that must be counted as it is read.
 * @throws WeftError `unsupported_media_type`, `payload_too_large`.
 */
export function checkBodyHeaders(req: Request, env: AuthedEnv["Bindings"]): "none" | "declared" | "streamed" {
  const headers = req.headers;
  const length = headers.get("content-length");
  if (length !== null ? length === "0" : req.body === null) return "none";
  if (length !== null && !headers.has("transfer-encoding")) {
    checkDeclaredBody(headers, length, env);
    return "declared";
  }
  checkJsonType(headers);
  return "streamed";
}

/**
 * {@link checkBodyHeaders} for a body of declared `length` (its `Content-Length`, not "0", and
 * no `Transfer-Encoding`): JSON (415), then within `WEFT_MAX_BODY_BYTES` (413).
 * @throws WeftError `unsupported_media_type`, `payload_too_large`.
 */
export function checkDeclaredBody(headers: Headers, length: string, env: AuthedEnv["Bindings"]): void {
  checkJsonType(headers);
  const limit = bodyLimitOf(env);
  if (Number.parseInt(length, 10) > limit.maxSize) limit.refuse();
}

/** @throws WeftError `unsupported_media_type` unless the body's `Content-Type` is JSON. */
function checkJsonType(headers: Headers): void {
  const type = (headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (!JSON_TYPE.test(type)) {
    throw new WeftError("unsupported_media_type", `request bodies must be application/json, not ${quotedValue(type || "(none)")}`, {
      path: ["content-type"],
    });
  }
}

/** `WEFT_MAX_BODY_BYTES` and its bodyLimit middleware, made once per env. */
const bodyLimitOf = perEnv((env: AuthedEnv["Bindings"]) => {
  const maxSize = limitOf(env, "bodyBytes");
  const refuse = (): never => {
    throw new WeftError("payload_too_large", `request body is over the ${maxSize}-byte limit (WEFT_MAX_BODY_BYTES)`, { limit: maxSize });
  };
  return { maxSize, refuse, middleware: bodyLimit({ maxSize, onError: refuse }) };
});

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error.issues, where);
  throw new WeftError("invalid_request", issues.map((i) => i.message).join("; "), { path: issues[0]!.path, issues, in: where });
}

/**
 * A parsed JSON body checked as {@link jsonBody} checks it: its shape (nesting within
 * `WEFT_MAX_JSON_DEPTH`, no lone surrogate), then `schema`. `plain`, when given, answers for the
 * bodies it is sure of with what `schema` would output, and null to leave a body to `schema`.
 * @throws WeftError `invalid_request` naming the path.
 */
export function validBody<S extends z.ZodType>(schema: S, body: unknown, env: AuthedEnv["Bindings"], plain?: (body: unknown) => z.output<S> | null): z.output<S> {
  // Before anything crosses to a Durable Object: too deep a value overflows the RPC's stack.
  checkJsonShape(body, limitOf(env, "jsonDepth"));
  return plain?.(body) ?? parse(schema, body, "body");
}

/**
 * Validates the JSON body with `schema`; an absent body counts as `{}`, even one labelled JSON
 * (`curl -X POST -H 'content-type: application/json'` with no data), which Hono would parse and refuse.
 */
export function jsonBody<S extends z.ZodType>(schema: S) {
  const parsed = validator("json", (value, c) => validBody(schema, value, c.env));
  const check: MiddlewareHandler<AuthedEnv> = async function checkJsonBody(c, next) {
    if (hasBody(c.req.raw)) {
      await parsed(c, next);
      return;
    }
    c.req.addValidatedData("json", validBody(schema, {}, c.env) as object);
    await next();
  };
  documented(check, "json", schema);
  // Typed as Hono's validator, so routes read `c.req.valid("json")` as the schema's output.
  return check as unknown as typeof parsed;
}

/** Validates the query string with `schema` (each parameter once, as a string). */
export function query<S extends z.ZodType>(schema: S) {
  const check = validator("query", (value) => {
    // Hono hands a repeated parameter over as a list; name it rather than "expected string, received array".
    const repeated = Object.keys(value).find((name) => Array.isArray(value[name]));
    if (repeated !== undefined) throw new WeftError("invalid_request", `${repeated}: given more than once; give it once`, { path: [repeated], in: "query" });
    return parse(schema, value, "query");
  });
  documented(check, "query", schema);
  return check;
}
