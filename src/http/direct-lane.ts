/**
 * The hot path of a direct tool call, `POST /v1/tools/:name` with a JSON body of declared length,
 * answered without the router: the app's checks in the app's order (authentication, then the body's
 * headers, then its JSON, then its schema), from the same functions its middleware calls, and the
 * same answers and errors. A direct call is the request an agent makes most, and the router, its
 * context and seven middleware layers cost about as much Worker CPU as the checks themselves.
 *
 * Every other request, and any the lane is not sure of (CORS configured, no token to verify, a
 * percent-encoded path, a query string, an empty or chunked body, a body that cannot be read or
 * is not JSON), goes
 * to the app, whose answer is the reference: the lane's answers must equal it (test/http/direct-lane.test.ts).
 * @module
 */
import type { Hono } from "hono";
import type { WeftEnv } from "../thread/durable.js";
import type { ToolCatalog } from "../tools/catalog.js";
import { answerJson, errorAnswer } from "./answers.js";
import { corsOf, rawPath } from "./app.js";
import { type AuthMode, type AuthedEnv, authMode, requestCaller } from "./auth.js";
import { answerDirectCallJson } from "./direct-call.js";
import { idempotencyClaim } from "./idempotency.js";
import { DirectCallBody, plainDirectCallBody } from "./schemas.js";
import { checkDeclaredBody, decodeUtf8Body, validBody } from "./validate.js";

/** The route's path; a name is one path segment (the router's `:name`). */
const ROUTE = /^\/v1\/tools\/([^/]+)$/;

/** A request the lane answers: the tool's name, the path as sent, the auth mode and the body's declared length. */
export interface LaneRequest {
  name: string;
  path: string;
  mode: AuthMode;
  /** `Content-Length` as sent (never "0"; the request has no `Transfer-Encoding`). */
  length: string;
}

/**
 * The request as the lane would take it, or null when it goes to the app. Looks at the method,
 * the URL and headers only (nothing is read or refused here).
 */
export function laneRequest(request: Request, env: WeftEnv): LaneRequest | null {
  if (request.method !== "POST") return null;
  const url = request.url;
  // A `%` needs decoding (or refusing) as the app does it; a query is left to the app too.
  if (url.includes("%") || url.includes("?")) return null;
  const path = rawPath(url);
  const match = ROUTE.exec(path);
  if (!match) return null;
  const length = request.headers.get("content-length");
  if (length === null || length === "0" || request.headers.has("transfer-encoding")) return null;
  if (corsOf(env) !== null) return null;
  const mode = authMode(env, url);
  // Only calls that verify a token: without one to ask for, the app's middleware checks the origin
  // (and marks development mode's answers).
  if (mode !== "verify") return null;
  return { name: match[1]!, path, mode, length };
}

/** The headers of a JSON answer that needs no others (the runtime copies them into each response). */
const JSON_HEADERS: Readonly<Record<string, string>> = { "Content-Type": "application/json" };

/** A JSON answer as the app's `c.json` makes it. */
function jsonResponse(value: unknown, status: number, headers?: Record<string, string>): Response {
  return new Response(answerJson(value), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
}

/**
 * The Worker's `fetch`: direct calls through the lane, everything else through `app`.
 * `catalog` is the one the app's tool routes use.
 */
export function directCallLane(app: Hono<AuthedEnv>, catalog: ToolCatalog): (request: Request, env: WeftEnv, ctx?: ExecutionContext) => Promise<Response> {
  return async function fetch(request, env, ctx) {
    const lane = laneRequest(request, env);
    if (!lane) return app.fetch(request, env, ctx);
    try {
      const caller = await requestCaller(env, request, lane.mode);
      checkDeclaredBody(request.headers, lane.length, env);
      let bytes: ArrayBuffer;
      try {
        bytes = await request.arrayBuffer();
      } catch {
        // A body that fails as it is read: the app's reading fails the same way, and it says so.
        return app.fetch(request, env, ctx);
      }
      // Decoded as the app decodes it: strict UTF-8 (refused otherwise, in the same words), a BOM dropped.
      const text = decodeUtf8Body(bytes);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // Not JSON: the app refuses it in its words (the body is handed over as read).
        return app.fetch(new Request(request.url, { method: "POST", headers: request.headers, body: text }), env, ctx);
      }
      const body = validBody(DirectCallBody, value, env, plainDirectCallBody);
      const idem = await idempotencyClaim(request.headers, "POST", lane.path, body);
      const { json, status } = await answerDirectCallJson(env, caller, catalog, lane.name, body, idem, text.length);
      return new Response(json, { status, headers: JSON_HEADERS });
    } catch (err) {
      const answer = errorAnswer(err, env);
      return jsonResponse(answer.body, answer.status, answer.headers);
    }
  };
}
