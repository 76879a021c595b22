import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { hashApiKey } from "../../src/http/auth.js";
import { registry } from "../generated/registry.js";

// The Worker works out its settings once per env object (CORS origins, auth mode, keys, the
// body limit, tokens it verified). A new deployment or changed vars hand it a new env object:
// nothing worked out for the old one may answer for the new one.

const app = createApp(registry);
const bindings = env as unknown as Record<string, unknown>;
const NO_AUTH = { ...bindings, WEFT_JWT_SECRET: "", WEFT_API_KEYS: "", WEFT_JWKS: "", WEFT_JWKS_URL: "" };

function send(vars: Record<string, unknown>, url: string, init?: RequestInit): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(url, init), vars as never));
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function hs256(secret: string, sub: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("weft-tests")
    .setAudience("weft-test")
    .setSubject(sub)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
    .sign(new TextEncoder().encode(secret));
}

describe("settings worked out per env follow a changed env", () => {
  it("a JWT verified (and trusted) under one secret is refused once the secret changes", async () => {
    const before = { ...bindings, WEFT_JWT_SECRET: "secret-before-rotation-0123456789" };
    const after = { ...bindings, WEFT_JWT_SECRET: "secret-after-rotation-9876543210" };
    const token = await hs256(before.WEFT_JWT_SECRET, "rotated");
    expect((await send(before, "http://weft.test/account", bearer(token))).status).toBe(200);
    expect((await send(before, "http://weft.test/account", bearer(token))).status).toBe(200);
    const refused = await send(after, "http://weft.test/account", bearer(token));
    expect(refused.status).toBe(401);
    expect((await refused.json<any>()).error.code).toBe("unauthenticated");
    expect((await send(after, "http://weft.test/account", bearer(await hs256(after.WEFT_JWT_SECRET, "rotated")))).status).toBe(200);
  });

  it("API keys, the auth mode, the body limit and CORS origins of a new env replace the old ones", async () => {
    const oldKey = "old-key-0123456789abcdef";
    const newKey = "new-key-fedcba9876543210";
    const first = { ...NO_AUTH, WEFT_API_KEYS: JSON.stringify({ [await hashApiKey(oldKey)]: { userId: "old" } }), WEFT_MAX_BODY_BYTES: "100000", WEFT_CORS_ORIGINS: "https://one.example" };
    const second = { ...NO_AUTH, WEFT_API_KEYS: JSON.stringify({ [await hashApiKey(newKey)]: { userId: "new" } }), WEFT_MAX_BODY_BYTES: "200", WEFT_CORS_ORIGINS: "https://two.example" };
    const body = JSON.stringify({ content: "x".repeat(400) });
    const post = (key: string) => ({ method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
    const preflight = (origin: string) => ({ method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });

    expect(await (await send(first, "http://weft.test/account", bearer(oldKey))).json()).toMatchObject({ userId: "old" });
    expect((await send(first, "http://weft.test/threads", post(oldKey))).status).not.toBe(413);
    expect((await send(first, "http://weft.test/threads", preflight("https://one.example"))).headers.get("access-control-allow-origin")).toBe("https://one.example");

    expect((await send(second, "http://weft.test/account", bearer(oldKey))).status).toBe(401);
    expect(await (await send(second, "http://weft.test/account", bearer(newKey))).json()).toMatchObject({ userId: "new" });
    const tooBig = await send(second, "http://weft.test/threads", post(newKey));
    expect(tooBig.status).toBe(413);
    expect((await tooBig.json<any>()).error).toMatchObject({ code: "payload_too_large", details: { limit: 200 } });
    expect((await send(second, "http://weft.test/threads", preflight("https://one.example"))).headers.get("access-control-allow-origin")).toBeNull();
    expect((await send(second, "http://weft.test/threads", preflight("https://two.example"))).headers.get("access-control-allow-origin")).toBe("https://two.example");

    // No credentials configured at all: refused (503), unless development mode on a loopback host.
    expect((await send(NO_AUTH, "https://weft.example.com/account")).status).toBe(503);
    expect((await send({ ...NO_AUTH, WEFT_DEV_MODE: "on" }, "http://localhost:8787/account")).status).toBe(200);
    expect((await send({ ...NO_AUTH, WEFT_DEV_MODE: "on" }, "https://weft.example.com/account")).status).toBe(503);
  });
});
