import { env } from "cloudflare:workers";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/http/app.js";
import { hashApiKey } from "../../src/http/auth.js";
import { registry } from "../generated/registry.js";
import { request } from "../helpers.js";

const app = createApp(registry);
const bindings = env as unknown as Record<string, unknown>;
const NO_AUTH = { ...bindings, WEFT_JWT_SECRET: "", WEFT_API_KEYS: "", WEFT_JWKS: "", WEFT_JWKS_URL: "" };

/** Sends a request straight to a fresh app with `vars` as the Worker's env. */
function send(vars: Record<string, unknown>, url: string, init?: RequestInit): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(url, init), vars as never));
}

async function hs256(claims: { sub?: string; roles?: string[] }, opts: { exp?: number; nbf?: number; aud?: string; iss?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ ...(claims.roles ? { roles: claims.roles } : {}) })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(opts.iss ?? "weft-tests")
    .setAudience(opts.aud ?? "weft-test")
    .setExpirationTime(opts.exp ?? now + 300);
  if (claims.sub) jwt = jwt.setSubject(claims.sub);
  if (opts.nbf !== undefined) jwt = jwt.setNotBefore(opts.nbf);
  return jwt.sign(new TextEncoder().encode("weft-test-jwt-secret-not-for-production"));
}

const whoAmI = async (token: string | null) => {
  const res = await request("/account", token ? { headers: { authorization: `Bearer ${token}` } } : {}, null);
  return { status: res.status, body: await res.json<any>(), header: res.headers.get("www-authenticate") };
};

describe("bearer JWTs (HS256)", () => {
  it("accept a valid token and take the principal from its claims", async () => {
    const me = await whoAmI(await hs256({ sub: "carol", roles: ["admin"] }));
    expect(me).toMatchObject({ status: 200, body: { userId: "carol", roles: ["admin"], admin: true } });
  });

  it("refuse expired, not-yet-valid, wrong-audience, wrong-issuer and subject-less tokens with 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      ["expired", await hs256({ sub: "carol" }, { exp: now - 120 })],
      ["not yet valid", await hs256({ sub: "carol" }, { nbf: now + 600 })],
      ["wrong audience", await hs256({ sub: "carol" }, { aud: "other-app" })],
      ["wrong issuer", await hs256({ sub: "carol" }, { iss: "someone" })],
      ["no subject", await hs256({})],
      ["bad signature", `${(await hs256({ sub: "carol" })).slice(0, -4)}AAAA`],
    ];
    for (const [what, token] of cases) {
      const me = await whoAmI(token);
      expect([what, me.status, me.body.error.code]).toEqual([what, 401, "unauthenticated"]);
      expect(me.header).toMatch(/^Bearer error="invalid_token"/);
    }
    expect((await whoAmI(cases[0]![1])).body.error.message).toBe("token expired");
    // Which key it failed against, in words, with jose's code to search for.
    expect((await whoAmI(cases[5]![1])).body.error.message).toBe("token refused: its signature does not verify with the key of WEFT_JWT_SECRET (ERR_JWS_SIGNATURE_VERIFICATION_FAILED)");
  });

  it("take a verified token on trust for a while, never past its exp and the skew", async () => {
    const start = Date.now();
    const token = await hs256({ sub: "carol" }, { exp: Math.floor(start / 1000) + 10 });
    try {
      expect((await whoAmI(token)).status).toBe(200);
      vi.setSystemTime(start + 20_000);
      expect((await whoAmI(token)).status).toBe(200);
      // exp + 30 s of skew has passed (well within the time a token is trusted): refused, as verifying it would be.
      vi.setSystemTime(start + 45_000);
      const me = await whoAmI(token);
      expect([me.status, me.body.error.message]).toEqual([401, "token expired"]);
    } finally {
      vi.useRealTimers();
    }
    // A token that never verified is not kept: the same bad token is refused every time.
    const bad = `${(await hs256({ sub: "carol" })).slice(0, -4)}AAAA`;
    for (let i = 0; i < 2; i++) expect((await whoAmI(bad)).status).toBe(401);
  });

  it("allow a small clock skew on exp", async () => {
    const me = await whoAmI(await hs256({ sub: "carol" }, { exp: Math.floor(Date.now() / 1000) - 10 }));
    expect(me.status).toBe(200);
  });
});

describe("token settings an attacker could get around", () => {
  it("a WEFT_JWT_SECRET shorter than 32 bytes verifies nothing: a token signed with it, admin role and all, is refused", async () => {
    // "changeme" falls to an offline guess from any one token its holder got: they could sign themselves admin.
    const vars = { ...NO_AUTH, WEFT_JWT_SECRET: "changeme" };
    const forged = await new SignJWT({ roles: ["admin"] }).setProtectedHeader({ alg: "HS256" }).setSubject("mallory").setIssuer("weft-tests").setAudience("weft-test").setExpirationTime("5m").sign(new TextEncoder().encode("changeme"));
    const res = await send(vars, "http://weft.test/account", { headers: { authorization: `Bearer ${forged}` } });
    const body = await res.json<any>();
    expect([res.status, body.error?.code, body.error?.details?.path]).toEqual([500, "invalid_config", ["WEFT_JWT_SECRET"]]);
    expect(body.error.message).toBe("WEFT_JWT_SECRET: shorter than 32 bytes; an HS256 secret needs at least 32 random bytes, or a token's holder can guess it offline and sign any token (openssl rand -base64 32)");
    // The same secret is never shown, nor the token.
    expect(JSON.stringify(body)).not.toContain("changeme");
  });

  it("the refusal of a short WEFT_JWT_SECRET does not tell its length: anyone sending any HS256 token gets it, and a known length shortens an offline search", async () => {
    const answers: unknown[] = [];
    // Anyone's made-up token: nothing signs it with the secret.
    const made = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("mallory").setExpirationTime("5m").sign(new TextEncoder().encode("x".repeat(32)));
    for (const secret of ["changeme", "a-secret-of-20-bytes"]) {
      const res = await send({ ...NO_AUTH, WEFT_JWT_SECRET: secret }, "http://weft.test/account", { headers: { authorization: `Bearer ${made}` } });
      answers.push([res.status, await res.json()]);
    }
    expect(answers[0]).toEqual(answers[1]);
  });

  it("a key set verifies no token without WEFT_JWT_AUDIENCE: its issuer's tokens for any other application would pass", async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
    const vars = { ...NO_AUTH, WEFT_JWT_AUDIENCE: "", WEFT_JWKS: JSON.stringify({ keys: [jwk] }) };
    // A token the same issuer made for another application (its own audience) that names an admin role.
    const elsewhere = await new SignJWT({ roles: ["admin"] }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setSubject("mallory").setIssuer("weft-tests").setAudience("another-app").setExpirationTime("5m").sign(pair.privateKey);
    const res = await send(vars, "http://weft.test/account", { headers: { authorization: `Bearer ${elsewhere}` } });
    const body = await res.json<any>();
    expect([res.status, body.error?.code, body.error?.details?.path]).toEqual([500, "invalid_config", ["WEFT_JWT_AUDIENCE"]]);
    expect(body.error.message).toMatch(/^WEFT_JWT_AUDIENCE: unset; tokens verified with WEFT_JWKS must name this deployment in their aud claim/);
  });
});

describe("bearer JWTs against a JWKS (RS256, ES256)", () => {
  for (const alg of ["RS256", "ES256"] as const) {
    it(`verify ${alg} tokens with the key set, and refuse a key not in it`, async () => {
      const good = await generateKeyPair(alg, { extractable: true });
      const stranger = await generateKeyPair(alg, { extractable: true });
      const jwk = { ...(await exportJWK(good.publicKey)), kid: "k1", alg };
      const vars = { ...NO_AUTH, WEFT_JWKS: JSON.stringify({ keys: [jwk] }) };
      const sign = (key: CryptoKey) =>
        new SignJWT({ roles: [] }).setProtectedHeader({ alg, kid: "k1" }).setSubject("dave").setIssuer("weft-tests").setAudience("weft-test").setExpirationTime("5m").sign(key);
      const ok = await send(vars, "http://weft.test/account", { headers: { authorization: `Bearer ${await sign(good.privateKey)}` } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ userId: "dave" });
      const bad = await send(vars, "http://weft.test/account", { headers: { authorization: `Bearer ${await sign(stranger.privateKey)}` } });
      expect(bad.status).toBe(401);
    });
  }
});

describe("algorithm confusion", () => {
  it("an HS256 token signed with a key set's public key, or one with alg none, is refused", async () => {
    const pair = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256" };
    const vars = { ...NO_AUTH, WEFT_JWT_AUDIENCE: "weft-test", WEFT_JWKS: JSON.stringify({ keys: [jwk] }) };
    const claims = { roles: ["admin"], sub: "mallory", iss: "weft-tests", aud: "weft-test", exp: Math.floor(Date.now() / 1000) + 300 };
    // The public key, known to all, used as an HMAC secret: verified as HS256 it would pass.
    const asSecret = new TextEncoder().encode(JSON.stringify(jwk));
    const confused = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "k1" }).sign(asSecret);
    const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
    for (const token of [confused, `${b64({ alg: "none" })}.${b64(claims)}.`]) {
      const res = await send(vars, "http://weft.test/account", { headers: { authorization: `Bearer ${token}` } });
      expect([res.status, (await res.json<any>()).error?.code]).toEqual([401, "unauthenticated"]);
    }
  });
});

describe("API keys", () => {
  it("are stored as SHA-256 hashes and name their user", async () => {
    expect(await hashApiKey("test-key-alice")).toBe("ad77f83d5d5b9a3b738cfc75982ec0460450b94aa1bac0f16451a1142c89c4c8");
    expect(await whoAmI("test-key-alice")).toMatchObject({ status: 200, body: { userId: "alice", admin: false } });
    expect(await whoAmI("test-key-admin")).toMatchObject({ status: 200, body: { userId: "root", admin: true } });
  });

  it("refuse an unknown key, a missing token, and a non-bearer scheme", async () => {
    expect((await whoAmI("test-key-nobody")).status).toBe(401);
    expect(await whoAmI(null)).toMatchObject({ status: 401, body: { error: { code: "unauthenticated" } } });
    // No credential sent: the challenge asks for a token and names no error (RFC 6750 section 3.1).
    expect((await whoAmI(null)).header).toBe("Bearer");
    expect((await whoAmI("test-key-nobody")).header).toMatch(/^Bearer error="invalid_token", error_description="unknown API key"$/);
    const basic = await request("/account", { headers: { authorization: "Basic dGVzdA==" } }, null);
    expect(basic.status).toBe(401);
  });

  it("take an entry only as documented: roles given as one string never make its key an admin (its letters hold 'admin'), nor does a userId that is no string act as anyone", async () => {
    // "roles": "sysadmin-readonly" read as a list would be tested with String.includes: "admin" is in it.
    for (const [entry, path] of [
      [{ userId: "eve", roles: "sysadmin-readonly" }, "roles"],
      [{ userId: "eve", roles: ["viewer", 7] }, "roles"],
      [{ roles: [] }, "userId"],
      [{ userId: 42 }, "userId"],
      [{ userId: "" }, "userId"],
      [{ userId: "eve", name: ["x"] }, "name"],
      [null, "userId"],
    ] as const) {
      const vars = { ...NO_AUTH, WEFT_API_KEYS: JSON.stringify({ [await hashApiKey("k-alice")]: { userId: "alice" }, [await hashApiKey("k-eve")]: entry }) };
      const res = await send(vars, "http://weft.test/account", { headers: { authorization: "Bearer k-eve" } });
      const body = await res.json<any>();
      expect([JSON.stringify(entry), res.status, body.error?.code, body.error?.details?.path]).toEqual([JSON.stringify(entry), 500, "invalid_config", ["WEFT_API_KEYS"]]);
      expect(body.error.message).toContain(`entry 2: ${path}`);
    }
  });
});

describe("without any credential configured", () => {
  it("a deployment refuses every request until WEFT_AUTH is none on purpose", async () => {
    for (const path of ["/", "/threads", "/v1/tools"]) {
      const res = await send(NO_AUTH, `https://weft.example.com${path}`);
      expect([path, res.status, (await res.json<any>()).error.code]).toEqual([path, 503, "auth_not_configured"]);
    }
    // Even with the development flag: a deployed Worker is never reached on a loopback host.
    const flagged = await send({ ...NO_AUTH, WEFT_DEV_MODE: "on" }, "https://weft.example.com/v1/tools");
    expect(flagged.status).toBe(503);
    // Open on purpose, on the hosts it is named by only (a name rebound to its address is refused).
    const open = await send({ ...NO_AUTH, WEFT_AUTH: "none", WEFT_MCP_HOSTS: "weft.example.com" }, "https://weft.example.com/account");
    expect(await open.json()).toMatchObject({ userId: "anonymous", admin: false });
    const unnamed = await send({ ...NO_AUTH, WEFT_AUTH: "none" }, "https://weft.example.com/account");
    expect([unnamed.status, (await unnamed.json<any>()).error.code]).toEqual([403, "origin_not_allowed"]);
  });

  it("wrangler dev with the development flag runs as the dev user and says so on every response", async () => {
    const vars = { ...NO_AUTH, WEFT_DEV_MODE: "on" };
    for (const url of ["http://localhost:8787/account", "http://127.0.0.1:8787/nowhere", "http://[::1]:8787/threads/zzz"]) {
      const res = await send(vars, url);
      expect(res.headers.get("x-weft-dev-mode")).toMatch(/^on: no authentication/);
    }
    expect(await (await send(vars, "http://localhost:8787/account")).json()).toMatchObject({ userId: "dev", admin: true });
    // The playground page, served before authentication, says so too.
    const page = await send(vars, "http://localhost:8787/", { headers: { accept: "text/html" } });
    expect([page.headers.get("content-type"), page.headers.get("x-weft-dev-mode")]).toEqual([expect.stringContaining("text/html"), expect.stringMatching(/^on: no authentication/)]);
  });

  it("development mode marks the WebSocket route's answers too (the thread's own 426, 400 and 101)", async () => {
    const vars = { ...NO_AUTH, WEFT_DEV_MODE: "on" };
    const created = await send(vars, "http://localhost:8787/threads", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const { threadId } = (await created.json()) as { threadId: string };
    const ws = `http://localhost:8787/threads/${threadId}/ws`;
    const upgrade = { headers: { upgrade: "websocket" } };
    const answers = [await send(vars, ws), await send(vars, `${ws}?batch=2`, upgrade), await send(vars, ws, upgrade)];
    expect(answers.map((res) => res.status)).toEqual([426, 400, 101]);
    for (const res of answers) expect(res.headers.get("x-weft-dev-mode"), String(res.status)).toMatch(/^on: no authentication/);
    answers[2]!.webSocket!.accept();
    answers[2]!.webSocket!.close();
  });

  it("development mode refuses a token it cannot verify instead of taking it for the dev user; no token is still dev", async () => {
    const vars = { ...NO_AUTH, WEFT_DEV_MODE: "on" };
    const jwt = await hs256({ sub: "alice" });
    for (const init of [
      { headers: { authorization: "Bearer garbage" } },
      { headers: { authorization: `Bearer ${jwt}` } },
      { headers: { authorization: "Basic YWxpY2U6cHc=" } },
    ]) {
      const res = await send(vars, "http://localhost:8787/account", init);
      expect([init.headers.authorization, res.status]).toEqual([init.headers.authorization, 401]);
      expect((await res.json<any>()).error).toEqual({
        code: "unauthenticated",
        message: 'development mode verifies no token: send none to act as "dev", or configure WEFT_JWT_SECRET, WEFT_JWKS_URL or WEFT_API_KEYS to verify tokens',
      });
    }
    const upgrade = await send(vars, "http://localhost:8787/threads/zzz/ws?access_token=garbage", { headers: { upgrade: "websocket" } });
    expect(upgrade.status).toBe(401);
    expect(await (await send(vars, "http://localhost:8787/account")).json()).toMatchObject({ userId: "dev" });
  });

  it("configuring a credential turns development mode off", async () => {
    const res = await send({ ...bindings, WEFT_DEV_MODE: "on" }, "http://localhost:8787/account");
    expect(res.status).toBe(401);
    expect(res.headers.get("x-weft-dev-mode")).toBeNull();
  });
});

describe("CORS", () => {
  it("is off unless configured, then answers only allowed origins", async () => {
    const preflight = { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST" } };
    const off = await send(bindings, "http://weft.test/threads", preflight);
    expect(off.headers.get("access-control-allow-origin")).toBeNull();
    const vars = { ...bindings, WEFT_CORS_ORIGINS: "https://app.example" };
    const allowed = await send(vars, "http://weft.test/threads", preflight);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const other = await send(vars, "http://weft.test/threads", { ...preflight, headers: { ...preflight.headers, origin: "https://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets a page on an allowed origin send every header weft/client sends (Idempotency-Key of answerCall)", async () => {
    const vars = { ...bindings, WEFT_CORS_ORIGINS: "https://app.example" };
    const asked = ["authorization", "content-type", "idempotency-key"];
    const res = await send(vars, "http://weft.test/threads/t/calls/c/result", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": asked.join(",") },
    });
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",").map((h) => h.trim());
    for (const header of asked) expect(allowed).toContain(header);
  });
});
