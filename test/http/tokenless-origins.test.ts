/**
 * Without a token to ask for (development mode, `WEFT_AUTH = "none"`), a web page on another origin
 * could act as the caller (review 21d): an empty cross-site form post ran a tool and made threads as
 * "dev", an admin, and a cross-site WebSocket read a thread's events. A browser request (one with an
 * `Origin`) is served only from weft's own origin on a host it serves by name, or a listed origin;
 * and any request only on a host weft serves by name (review 21f: a rebound name read by GETs).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { directCallLane } from "../../src/http/direct-lane.js";
import { ToolCatalog } from "../../src/tools/catalog.js";
import { registry } from "../generated/registry.js";

// The Worker's own entry: its direct-call lane answers `POST /v1/tools/:name` without the app (review 21e: the lane skipped the check).
const catalog = new ToolCatalog(registry.tools);
const worker = directCallLane(createApp(registry, catalog), catalog);
const bindings = env as unknown as Record<string, unknown>;
const tokenless = { ...bindings, WEFT_JWT_SECRET: "", WEFT_API_KEYS: "", WEFT_JWKS: "", WEFT_JWKS_URL: "" };
const DEV = { ...tokenless, WEFT_DEV_MODE: "on" };
const OPEN = { ...tokenless, WEFT_AUTH: "none" };

const send = (vars: Record<string, unknown>, url: string, init?: RequestInit) => worker(new Request(url, init), vars as never);
/** What a `<form method=post>` with no fields sends from another site. */
const form = (origin: string) => ({ method: "POST", headers: { origin, "content-type": "application/x-www-form-urlencoded" } });
const codeOf = async (res: Response) => [res.status, ((await res.json()) as { error?: { code?: string } }).error?.code];

describe("a page on another origin, with no token to ask for", () => {
  it("cannot run a tool or make a thread with an empty form post, in development mode or open", async () => {
    expect(await codeOf(await send(DEV, "http://localhost:8787/v1/tools/get_server_time", form("https://evil.example")))).toEqual([403, "origin_not_allowed"]);
    expect(await codeOf(await send(DEV, "http://localhost:8787/threads", form("https://evil.example")))).toEqual([403, "origin_not_allowed"]);
    expect(await codeOf(await send(OPEN, "https://weft.internal.example/v1/tools/get_server_time", form("https://evil.example")))).toEqual([403, "origin_not_allowed"]);
    // A name rebound to weft's address looks same-origin: refused unless weft serves that host by name,
    // a JSON call with its declared length (the lane's) too.
    expect(await codeOf(await send(OPEN, "https://weft.internal.example/threads", form("https://weft.internal.example")))).toEqual([403, "origin_not_allowed"]);
    const body = JSON.stringify({ input: {} });
    const call = { method: "POST", headers: { origin: "https://weft.internal.example", "content-type": "application/json", "content-length": String(body.length) }, body };
    expect(await codeOf(await send(OPEN, "https://weft.internal.example/v1/tools/get_server_time", call))).toEqual([403, "origin_not_allowed"]);
  });

  it("cannot read by plain GETs from a name rebound to weft's address (a browser sends no Origin on a same-origin GET; review 21f)", async () => {
    expect(await codeOf(await send(OPEN, "http://evil.example/threads"))).toEqual([403, "origin_not_allowed"]);
    expect(await codeOf(await send({ ...OPEN, WEFT_MCP_HOSTS: "weft.internal.example" }, "http://evil.example/account/env"))).toEqual([403, "origin_not_allowed"]);
    // Development mode answers loopback names only, as before.
    expect((await send(DEV, "http://evil.example/threads")).status).toBe(503);
  });

  it("cannot open a thread's WebSocket", async () => {
    const created = await send(DEV, "http://localhost:8787/threads", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const { threadId } = (await created.json()) as { threadId: string };
    const res = await send(DEV, `http://localhost:8787/threads/${threadId}/ws`, { headers: { upgrade: "websocket", origin: "https://evil.example" } });
    res.webSocket?.accept();
    res.webSocket?.close();
    expect(res.status).toBe(403);
  });
});

describe("an origin no list can name", () => {
  it("`null` in WEFT_CORS_ORIGINS (as a file:// page needs) lets no sandboxed frame of any site act as the caller, nor read a CORS answer", async () => {
    // Every sandboxed iframe (`<iframe sandbox="allow-scripts" srcdoc>` on any site) sends `Origin: null`, as file:// pages do.
    const listed = { ...DEV, WEFT_CORS_ORIGINS: "null, https://app.example" };
    expect(await codeOf(await send(listed, "http://localhost:8787/threads", form("null")))).toEqual([403, "origin_not_allowed"]);
    const read = await send(listed, "http://localhost:8787/account", { headers: { origin: "null" } });
    expect(read.status).toBe(403);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await send({ ...bindings, WEFT_CORS_ORIGINS: "null" }, "http://weft.test/threads", { method: "OPTIONS", headers: { origin: "null", "access-control-request-method": "POST" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    // The origin listed beside it still is served, as a browser writes it (lower case) whatever the list's case.
    const app = await send({ ...DEV, WEFT_CORS_ORIGINS: "null, https://App.Example" }, "http://localhost:8787/account", { headers: { origin: "https://app.example" } });
    expect([app.status, app.headers.get("access-control-allow-origin")]).toEqual([200, "https://app.example"]);
  });
});

describe("what is still served", () => {
  it("weft's own page on a loopback name, a listed host or origin, and clients that send no Origin", async () => {
    const json = { "content-type": "application/json" };
    const own = await send(DEV, "http://localhost:8787/threads", { method: "POST", headers: { ...json, origin: "http://localhost:8787" }, body: "{}" });
    const listedHost = await send({ ...OPEN, WEFT_MCP_HOSTS: "weft.internal.example" }, "https://weft.internal.example/threads", { method: "POST", headers: { ...json, origin: "https://weft.internal.example" }, body: "{}" });
    const listedOrigin = await send({ ...OPEN, WEFT_CORS_ORIGINS: "https://app.example", WEFT_MCP_HOSTS: "weft.internal.example" }, "https://weft.internal.example/threads", { method: "POST", headers: { ...json, origin: "https://app.example" }, body: "{}" });
    const client = await send({ ...OPEN, WEFT_MCP_HOSTS: "weft.internal.example" }, "https://weft.internal.example/threads", { method: "POST", headers: json, body: "{}" });
    const local = await send(OPEN, "http://localhost:8787/threads", { method: "POST", headers: json, body: "{}" });
    // A loopback name is served whatever WEFT_MCP_HOSTS lists (review 21g: listing the deployed name shut out npm start and weft/testing).
    const named = { WEFT_MCP_HOSTS: "weft.example.com" };
    const localListed = await send({ ...OPEN, ...named }, "http://localhost/threads", { method: "POST", headers: json, body: "{}" });
    const devListed = await send({ ...DEV, ...named }, "http://localhost:8787/threads", { method: "POST", headers: { ...json, origin: "http://localhost:8787" }, body: "{}" });
    expect([own.status, listedHost.status, listedOrigin.status, client.status, local.status, localListed.status, devListed.status]).toEqual([201, 201, 201, 201, 201, 201, 201]);
  });
});
