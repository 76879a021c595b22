/**
 * The Worker's Hono app: CORS (off unless configured), authentication, body checks, the routes,
 * and one error mapping to `{ error: { code, message, details? } }` with the status its code
 * implies. Answers are cleaned of secrets by the threads they come from (see `answerJson` in
 * answers.ts).
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { WeftError, echoedValue, quotedValue } from "../errors.js";
import { perEnv } from "../per-env.js";
import { playgroundResponse, wantsHtml } from "../playground/page.js";
import { type Registry, agentIds } from "../run/agent.js";
import type { ToolCatalog } from "../tools/catalog.js";
import { accountRoutes } from "./account.js";
import { errorAnswer } from "./answers.js";
import { type AuthedEnv, authMode, authenticate, markedDevMode } from "./auth.js";
import { callRoutes } from "./calls.js";
import { chatRoutes } from "./chat.js";
import { fileRoutes } from "./files.js";
import { IDEMPOTENCY_HEADER } from "./idempotency.js";
import { scheduleRoutes } from "./schedules.js";
import { fileScheduleRoutes } from "./file-schedules.js";
import { mcpOAuthCompletionRoutes, mcpOAuthRoutes } from "./mcp-oauth.js";
import { mcpRoutes } from "./mcp.js";
import { mcpServerRoutes } from "./mcp-servers.js";
import { corsOrigins } from "./origins.js";
import { directCatalog } from "./direct-call.js";
import { describe, ok, openApiDocument } from "./openapi.js";
import * as R from "./responses.js";
import { threadRoutes } from "./threads.js";
import { toolRoutes } from "./tools.js";
import { requestBodies } from "./validate.js";

/** Every route of an app as `METHOD /path`, read from the router (middleware left out). */
export function routeList(app: Hono<any>): string[] {
  const seen = new Set<string>();
  for (const r of app.routes) if (r.method !== "ALL") seen.add(`${r.method} ${r.path}`);
  return [...seen];
}

/**
 * The CORS middleware for the origins in `WEFT_CORS_ORIGINS` ({@link corsOrigins}); null (CORS off)
 * when it names none. It allows every header weft/client sends, `Idempotency-Key` included.
 */
export const corsOf = perEnv((env: AuthedEnv["Bindings"]): MiddlewareHandler | null => {
  const origins = corsOrigins(env);
  if (origins.length === 0) return null;
  return cors({ origin: origins, allowHeaders: ["authorization", "content-type", IDEMPOTENCY_HEADER.toLowerCase()], allowMethods: ["GET", "POST", "PUT", "DELETE"], maxAge: 600 });
});

/** The path of a request URL as sent (still percent-encoded), without parsing the whole URL. */
export function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

/** Builds the app for a registry; `catalog` (the registry's tools) may be shared with the direct-call lane. */
export function createApp(registry: Registry, catalog = directCatalog(registry)): Hono<AuthedEnv> {
  const app = new Hono<AuthedEnv>();

  app.use("*", async function corsIfConfigured(c, next) {
    const cors = corsOf(c.env);
    return cors ? cors(c, next) : next();
  });
  // A path with malformed percent-encoding (`%ZZ`, or bytes that are not UTF-8) names nothing.
  app.use("*", async function wellFormedPath(c, next) {
    // Without a `%` there is nothing to decode (nor to get wrong).
    if (!c.req.url.includes("%")) return next();
    const raw = rawPath(c.req.url);
    try {
      decodeURIComponent(raw);
    } catch {
      throw new WeftError("invalid_request", `path ${quotedValue(raw)} has malformed percent-encoding`, { path: ["path"] });
    }
    return next();
  });
  // The playground page holds no data: a browser gets it before authentication (then signs in on it).
  app.get("/", (c, next) => (wantsHtml(c.req.header("accept")) ? playgroundResponse().then((res) => markedDevMode(res, authMode(c.env, c.req.url))) : next()));
  // A browser coming back from an MCP server's authorization server carries no weft credential: it gets a page that completes with one.
  app.route("/", mcpOAuthRoutes());
  app.use("*", authenticate());
  app.use("*", requestBodies());


  app.get("/", describe("Name the agents, tools and routes; a browser (Accept: text/html) gets the playground page", { 200: { description: "JSON, or the playground's HTML", json: R.Index, media: ["text/html"] } }), (c) =>
    c.json({ name: "weft", agents: agentIds(registry), tools: Object.keys(registry.tools).sort(), routes: routeList(app), caller: c.var.caller.userId } satisfies R.Body<typeof R.Index>),
  );
  app.route("/threads", threadRoutes(registry));
  app.route("/threads", callRoutes());
  app.route("/threads", fileRoutes());
  app.route("/threads", scheduleRoutes());
  app.route("/threads", chatRoutes());
  app.route("/account", accountRoutes());
  app.route("/schedules", fileScheduleRoutes(registry));
  app.route("/v1/tools", toolRoutes(catalog, registry));
  app.route("/mcp", mcpRoutes(registry));
  app.route("/mcp-servers", mcpServerRoutes(registry));
  app.route("/", mcpOAuthCompletionRoutes());
  let described: Promise<Record<string, unknown>> | null = null;
  app.get("/openapi.json", describe("This API's OpenAPI 3.1 description, generated from the router", { 200: ok("This document", R.OpenApiDocument) }), async (c) => c.json(await (described ??= openApiDocument(app))));

  app.notFound((c) => c.json(new WeftError("not_found", `no route ${echoedValue(`${c.req.method} ${c.req.path}`)}`).toBody(), 404));
  app.onError((err, c) => {
    const answer = errorAnswer(err, c.env);
    return c.json(answer.body, answer.status as ContentfulStatusCode, answer.headers);
  });
  return app;
}
