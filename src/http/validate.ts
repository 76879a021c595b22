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
import { WeftError } from "../errors.js";
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
    const headers = c.req.raw.headers;
    const length = headers.get("content-length");
    if (length !== null ? length === "0" : c.req.raw.body === null) return next();
    const type = (headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (!JSON_TYPE.test(type)) {
      throw new WeftError("unsupported_media_type", `request bodies must be application/json, not ${JSON.stringify(type || "(none)")}`, {
        path: ["content-type"],
      });
    }
    const limit = bodyLimitOf(c.env);
    // A declared length is the body's length (the runtime holds the stream to it): compared
    // here, as bodyLimit would; a chunked body is counted by bodyLimit as it is read.
    if (length !== null && !headers.has("transfer-encoding")) {
      if (Number.parseInt(length, 10) > limit.maxSize) limit.refuse();
      return next();
    }
    return limit.middleware(c, next);
  };
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
  const issues = describeIssues(parsed.error.issues);
  throw new WeftError("invalid_request", issues.map((i) => i.message).join("; "), { path: issues[0]!.path, issues, in: where });
}

/** Validates the JSON body with `schema`; an absent body counts as `{}`. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  const check = validator("json", (value, c) => {
    const body = hasBody(c.req.raw) ? value : {};
    // Before anything crosses to a Durable Object: too deep a value overflows the RPC's stack.
    checkJsonShape(body, limitOf(c.env, "jsonDepth"));
    return parse(schema, body, "body");
  });
  documented(check, "json", schema);
  return check;
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
