/**
 * The authorization matrix: every route of the app (read from the router) and the WebSocket, sent
 * by six principals (owner, another user, an admin, no token, an expired token, a token for the
 * wrong audience), plus a canary turn that tries to leak a secret planted at every env level.
 * Every outgoing byte (HTTP bodies and headers, WebSocket frames, console output) is scanned.
 * @module
 */
import { SignJWT } from "jose";
import { routeList, createApp } from "../../src/http/app.js";
import { defineSchedule } from "../../src/schedules/define.js";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, request, stubOf } from "../helpers.js";

/** The canaries, one per env level (agent and prompt ones live in test/fixtures). */
export const CANARIES = {
  CANARY_THREAD: "canary-thread-5c8e2a9f01",
  CANARY_AGENT: "canary-agent-3f9a0c4411",
  CANARY_PROMPT: "canary-prompt-7d1e5b22c0",
  CANARY_USER: "canary-user-e04b7d3a96",
  CANARY_WORKER: "canary-worker-9b2d6e7a15",
  /** Set by the tool itself during the turn (`state.setEnv`). */
  CANARY_SET: "canary-set-61f0e2d8b7",
};

type Who = "owner" | "other" | "admin" | "none" | "expired" | "wrong_audience";
/** Routes that take no credential (the OAuth redirect back: it checks the signed state and answers a page, exchanging nothing). */
const PUBLIC_ROUTES = new Set(["GET /mcp-oauth/callback"]);
const PRINCIPALS: Who[] = ["other", "admin", "none", "expired", "wrong_audience", "owner"];

/** What the matrix found. */
export interface MatrixReport {
  routes: number;
  principals: number;
  crossUser: string[];
  bytesScanned: number;
  leaks: string[];
  /** Routes the admin could read, and owner requests that were refused (both should be complete/empty). */
  adminReads: number;
  ownerRefused: string[];
}

const SECRET = new TextEncoder().encode("weft-test-jwt-secret-not-for-production");

async function jwt(sub: string, options: { expired?: boolean; audience?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name: sub, roles: [] })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuer("weft-tests")
    .setAudience(options.audience ?? "weft-test")
    .setIssuedAt(now - 3600)
    .setExpirationTime(options.expired ? now - 600 : now + 600)
    .sign(SECRET);
}

/** Runs the matrix; `short` skips the expired and wrong-audience principals on every route but one. */
export async function runMatrix(options: { short?: boolean } = {}): Promise<MatrixReport> {
  const tokens: Record<Who, string | null> = {
    owner: await jwt("alice"),
    other: API_KEYS.bob,
    admin: API_KEYS.root,
    none: null,
    expired: await jwt("alice", { expired: true }),
    wrong_audience: await jwt("alice", { audience: "someone-else" }),
  };
  const out: MatrixReport = { routes: 0, principals: PRINCIPALS.length, crossUser: [], bytesScanned: 0, leaks: [], adminReads: 0, ownerRefused: [] };
  const canaries = Object.values(CANARIES);
  const scan = (where: string, text: string) => {
    out.bytesScanned += new TextEncoder().encode(text).byteLength;
    for (const c of canaries) if (text.includes(c)) out.leaks.push(`${where}: ${c}`);
  };
  const untap = tapLogs((level, args) => scan(`console.${level}`, args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" ")));
  const send = async (who: Who, method: string, path: string, body?: unknown, ws = false) => {
    const headers: Record<string, string> = {};
    if (tokens[who]) headers.authorization = `Bearer ${tokens[who]}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    if (ws) headers.upgrade = "websocket";
    const res = await request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, null);
    const text = res.webSocket ? "" : await res.text();
    scan(`${who} ${method} ${path}`, `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${text}`);
    return { res, text };
  };
  const asJson = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  };

  registry.schedules![OWNED_FILE] = defineSchedule({ ...SCHEDULE, owner: "alice" });
  try {
    // The owner's world: a user-level canary, a thread with a thread-level canary, the canary turn.
    await send("owner", "PUT", "/account/env/CANARY_USER", { value: CANARIES.CANARY_USER });
    const created = asJson((await send("owner", "POST", "/threads", { agent: "canary", env: { CANARY_THREAD: { value: CANARIES.CANARY_THREAD, type: "secret" } } })).text);
    const id: string = created.threadId;
    const socket = await send("owner", "GET", `/threads/${id}/ws`, undefined, true);
    const frames: string[] = [];
    socket.res.webSocket!.accept();
    socket.res.webSocket!.addEventListener("message", (e) => {
      frames.push(String(e.data));
    });
    const script = [
      { toolCalls: [{ id: "leak", name: "leak_secrets", arguments: { mode: "echo" } }, { id: "boom", name: "leak_secrets", arguments: { mode: "throw" } }] },
      { toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] },
      { text: "done" },
    ];
    await send("owner", "POST", `/threads/${id}/messages`, { content: "leak everything", script });
    await stubOf(id).waitIdle();
    const fileList = asJson((await send("owner", "GET", `/threads/${id}/files`)).text);
    const file: string = fileList.files[0].path;
    const made = asJson((await send("owner", "POST", `/threads/${id}/schedules`, SCHEDULE)).text);
    const scheduleId: string = made.scheduleId;

    // Every route by every principal. Writes that change the owner's thread run last.
    const routes = routeList(createApp(registry)).sort((a, b) => rank(a) - rank(b));
    out.routes = routes.length;
    const shortCut = options.short ? new Set<Who>(["expired", "wrong_audience"]) : new Set<Who>();
    for (const route of routes) {
      const [method, pattern] = route.split(" ") as [string, string];
      const path = pattern
        .replace(":id", id)
        .replace(":callId", "pay")
        .replace(":scheduleId", scheduleId)
        .replace(":server", "oauthed")
        .replace(":name", pattern.startsWith("/account") ? "CANARY_USER" : pattern.startsWith("/schedules/files") ? OWNED_FILE : "needs_ok")
        .replace("*", file.split("/").map(encodeURIComponent).join("/"));
      const body = bodyFor(route, id);
      const threadScoped = pattern.includes(":id") || route === "POST /v1/tools/:name";
      for (const who of PRINCIPALS) {
        if (shortCut.has(who) && route !== "GET /threads/:id") continue;
        const { res, text } = await send(who, method, path, body, route.endsWith("/ws"));
        const ok = res.status < 400;
        if (PUBLIC_ROUTES.has(route)) {
          // No credential is read there: without a signed state every principal is refused alike.
          if (res.status !== 400 || text.includes(id)) out.crossUser.push(`${who} ${route} -> ${res.status}`);
        } else if (who === "none" || who === "expired" || who === "wrong_audience") {
          if (res.status !== 401) out.crossUser.push(`${who} ${route} -> ${res.status}`);
        } else if (who === "other" || (who === "admin" && method !== "GET")) {
          if (threadScoped && res.status !== 404) out.crossUser.push(`${who} ${route} -> ${res.status}`);
          if (!threadScoped && text.includes(id)) out.crossUser.push(`${who} ${route} sees the owner's thread`);
          if (res.webSocket) out.crossUser.push(`${who} ${route} got a socket`);
        } else if (who === "admin") {
          if (threadScoped && ok) out.adminReads++;
        } else if (res.status === 401 || res.status === 404) {
          out.ownerRefused.push(`${route} -> ${res.status}`);
        }
        if (res.webSocket) {
          res.webSocket.accept();
          res.webSocket.close();
        }
      }
    }
    await new Promise((r) => setTimeout(r, 50));
    socket.res.webSocket!.close();
    for (const f of frames) scan("ws frame", f);
  } finally {
    delete registry.schedules![OWNED_FILE];
    untap();
  }
  return out;
}

/** Reads first, then writes, deletes last: the owner's own writes must not hide later checks. */
function rank(route: string): number {
  if (route === "DELETE /threads/:id") return 4;
  if (route.startsWith("GET")) return 0;
  if (route.startsWith("DELETE")) return 3;
  if (route.includes("/stop")) return 2;
  return 1;
}

/** A schedule the owner may make (a read, hourly: it never fires during the matrix). */
const SCHEDULE = { every: "1h", target: { tool: "needs_ok", input: { amount: 1 } } };

/** A file schedule of the owner's, added to the registry for the run as a deploy adds one: the `/schedules/files` routes name it. */
const OWNED_FILE = "matrix_owned";

/** A valid body for each route that takes one (the matrix tests who may, not what is valid). */
function bodyFor(route: string, threadId: string): unknown {
  const bodies: Record<string, unknown> = {
    "POST /threads": { agent: "canary" },
    "POST /threads/:id/messages": { content: "hello", script: [{ text: "hi" }] },
    "POST /threads/:id/chat": { messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }], script: [{ text: "hi" }] },
    "POST /mcp": { jsonrpc: "2.0", id: 1, method: "tools/list" },
    "POST /threads/:id/calls/:callId/approve": {},
    "POST /threads/:id/calls/:callId/deny": { reason: "no" },
    "POST /threads/:id/calls/:callId/settle": { outcome: "retry" },
    "POST /threads/:id/calls/:callId/result": { result: "ok" },
    "POST /v1/tools/:name": { input: { amount: 1 }, sessionId: threadId },
    "PUT /account/env/:name": { value: "mine-not-yours" },
    "POST /threads/:id/schedules": SCHEDULE,
  };
  return bodies[route];
}
