/**
 * The Worker's Hono app: routes to Thread Durable Objects and maps every error to
 * `{ error: { code, message, details? } }` with the status its code implies.
 * @module
 */
import { Hono } from "hono";
import { WeftError } from "../errors.js";
import { type Registry, agentIds } from "../run/agent.js";
import type { WeftEnv } from "../thread/durable.js";
import { callRoutes } from "./calls.js";
import { threadRoutes } from "./threads.js";
import { toolRoutes } from "./tools.js";

/** Builds the app for a registry. */
export function createApp(registry: Registry): Hono<{ Bindings: WeftEnv }> {
  const app = new Hono<{ Bindings: WeftEnv }>();

  // A path with malformed percent-encoding (`%ZZ`, or bytes that are not UTF-8) names nothing.
  app.use("*", async function wellFormedPath(c, next) {
    const raw = new URL(c.req.url).pathname;
    try {
      decodeURIComponent(raw);
    } catch {
      throw new WeftError("invalid_request", `path ${JSON.stringify(raw.slice(0, 200))} has malformed percent-encoding`, { path: ["path"] });
    }
    return next();
  });

  app.get("/", (c) =>
    c.json({
      name: "weft",
      agents: agentIds(registry),
      tools: Object.keys(registry.tools).sort(),
      routes: [
        "GET /v1/tools",
        "POST /v1/tools/:name",
        "POST /threads",
        "GET /threads/:id",
        "GET|POST /threads/:id/messages",
        "GET /threads/:id/calls?status=",
        "GET /threads/:id/calls/:callId",
        "POST /threads/:id/calls/:callId/approve",
        "POST /threads/:id/calls/:callId/deny",
        "POST /threads/:id/calls/:callId/settle",
        "GET /threads/:id/files/:path",
        "POST /threads/:id/stop",
        "GET /threads/:id/ws?since=<seq>",
      ],
    }),
  );
  app.route("/threads", threadRoutes());
  app.route("/threads", callRoutes());
  app.route("/v1/tools", toolRoutes(registry));

  app.notFound((c) => c.json(new WeftError("not_found", `no route ${c.req.method} ${c.req.path}`).toBody(), 404));
  app.onError((err, c) => {
    if (err instanceof WeftError) return c.json(err.toBody(), err.status as 400);
    console.error("weft: unhandled error", err);
    return c.json(new WeftError("internal_error", "internal error").toBody(), 500);
  });
  return app;
}
