/**
 * Authentication as Hono middleware: every request gets a verified `Caller` or a 401. Bearer
 * tokens are JWTs (HS256 with `WEFT_JWT_SECRET`, or RS256/ES256 against `WEFT_JWKS_URL` /
 * `WEFT_JWKS`; `exp`, `nbf`, `iss`, `aud` checked with a small clock skew, via `jose`) or static
 * API keys (`WEFT_API_KEYS`: SHA-256 hashes of the keys, compared in constant time).
 *
 * Without any of those, weft refuses every request (503 `auth_not_configured`) unless
 * `WEFT_AUTH = "none"` says so on purpose, or it runs in development mode: `WEFT_DEV_MODE=on`
 * (only `npm start` passes it, as `wrangler dev --var`, so no config file can ship it) and the
 * request arrives on a loopback host (a deployed Worker is never reached as localhost). There a
 * request without a token acts as "dev", and one with a token is refused (nothing can verify it).
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { type JWTPayload, createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import { sha256Hex } from "../bytes.js";
import { AUTH_SETTINGS } from "../config.js";
import { WeftError, quotedValue } from "../errors.js";
import { log, logLines } from "../log.js";
import { RESERVED_USER_PREFIX, isReservedUserId } from "../ids.js";
import { perEnv } from "../per-env.js";
import type { Caller, Principal } from "../rpc.js";
import type { WeftEnv } from "../thread/durable.js";
import { isLoopback, tokenlessRefusal } from "./origins.js";
import { TOKEN_PROTOCOL_PREFIX, offeredProtocols, tokenOfProtocol } from "../socket-token.js";

/** Hono env of routes behind {@link authenticate}. */
export type AuthedEnv = { Bindings: WeftEnv; Variables: { caller: Caller } };

/** Header on every response of a development-mode Worker. */
export const DEV_MODE_HEADER = "x-weft-dev-mode";

/** Seconds of clock skew allowed on `exp` and `nbf`. */
export const CLOCK_SKEW_S = 30;

/**
 * Who every request without a credential is in development mode: an admin, so nothing is hidden
 * while developing. A request that sends a token (or any `Authorization` header) is refused with
 * 401 `unauthenticated` instead: nothing in development mode can verify it, and acting as "dev"
 * would hide a client that meant to be someone else.
 */
export const DEV_PRINCIPAL: Principal = { userId: "dev", name: "development user", roles: ["admin"] };
/** Why development mode refuses a request that carries a credential. */
const DEV_CREDENTIAL_REFUSED =
  'development mode verifies no token: send none to act as "dev", or configure WEFT_JWT_SECRET, WEFT_JWKS_URL or WEFT_API_KEYS to verify tokens';

/** Who every request is under `WEFT_AUTH = "none"`. */
export const ANONYMOUS: Principal = { userId: "anonymous", name: "anonymous", roles: [] };

/** How this Worker authenticates: verify tokens, no auth on purpose, development, or refuse. */
export type AuthMode = "verify" | "none" | "dev" | "refuse";

/** True when any way to verify a token is configured. */
export function authConfigured(env: WeftEnv): boolean {
  return AUTH_SETTINGS.some((name) => typeof env[name] === "string" && env[name] !== "");
}

/**
 * Says at start, loudly, when this Worker runs without authentication: the development-mode banner
 * (`WEFT_DEV_MODE=on`), or one line for `WEFT_AUTH = "none"`; with credentials, one line for each
 * token setting that verifies nothing ({@link settingRefusal}, a `WEFT_API_KEYS` of another
 * shape). The `none` line is left out under `WEFT_TEST_RUNNER=on` (set by vitest.agents.config.ts),
 * where only the test runner reaches the Worker; a deployment never sets it, so one open on purpose
 * still says so.
 */
export function announceAuth(vars: WeftEnv | undefined): void {
  if (!vars) return;
  if (authConfigured(vars)) {
    // Its operator learns it at start, not from the first user refused.
    for (const kind of ["HS256", "key set"] as const) {
      const refusal = settingRefusal(vars, kind);
      if (refusal) log("warn", `weft: ${refusal.message}: every token it would verify is refused (500 invalid_config) until it is fixed`);
    }
    const keys = apiKeyTable(vars);
    if (typeof keys === "string") log("warn", `weft: WEFT_API_KEYS: ${keys}: every API key is refused (500 invalid_config) until it is fixed`);
    return;
  }
  if (vars.WEFT_DEV_MODE === "on") {
    logLines("warn", [
      "",
      "*** weft: DEVELOPMENT MODE: no authentication is configured. Requests to localhost without a",
      '*** token act as the development user "dev" (admin); one with a token is refused (nothing can',
      "*** verify it). Every response carries x-weft-dev-mode. A deployed weft without auth refuses",
      "*** every request. See docs/authentication.md.",
      "",
    ]);
  } else if (vars.WEFT_AUTH === "none" && vars.WEFT_TEST_RUNNER !== "on") {
    log("warn", 'weft: WEFT_AUTH = "none": every request is accepted as "anonymous", on purpose.');
  }
}

/** The mode the env allows, before the request's host is known: `dev` still needs a loopback host. */
const envMode = perEnv((env: WeftEnv): AuthMode => {
  if (authConfigured(env)) return "verify";
  if (env.WEFT_AUTH === "none") return "none";
  return env.WEFT_DEV_MODE === "on" ? "dev" : "refuse";
});

/** The mode for a request to `url`. */
export function authMode(env: WeftEnv, url: string): AuthMode {
  const mode = envMode(env);
  if (mode === "dev") return isLoopback(new URL(url).hostname) ? "dev" : "refuse";
  return mode;
}

/** The caller a principal acts as; `admin` from the role named by `WEFT_ADMIN_ROLE` (default "admin"). */
export function callerOf(env: WeftEnv, p: Principal): Caller {
  const adminRole = typeof env.WEFT_ADMIN_ROLE === "string" && env.WEFT_ADMIN_ROLE ? env.WEFT_ADMIN_ROLE : "admin";
  return { userId: p.userId, name: p.name, roles: p.roles, admin: p.roles.includes(adminRole), ...(p.expiresAt !== undefined ? { expiresAt: p.expiresAt } : {}) };
}

const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** Fewest bytes of an HS256 secret: the hash's size (RFC 7518 section 3.2); a shorter one can be guessed offline from any token. */
const MIN_HS256_SECRET_BYTES = 32;

/**
 * Why a token setting verifies no token of `kind`, or null: an HS256 secret under
 * {@link MIN_HS256_SECRET_BYTES} (every holder of a token could find it offline and sign themselves
 * any user, admin included), or a key set without `WEFT_JWT_AUDIENCE` (its issuer signs tokens for
 * other applications too: only `aud` says one is for this deployment). One rule for the start-up
 * warning and every verification.
 */
function settingRefusal(env: WeftEnv, kind: "HS256" | "key set"): WeftError | null {
  if (kind === "HS256") {
    if (typeof env.WEFT_JWT_SECRET !== "string" || !env.WEFT_JWT_SECRET || new TextEncoder().encode(env.WEFT_JWT_SECRET).byteLength >= MIN_HS256_SECRET_BYTES) return null;
    // Its length is not said: anyone with any token reads this, and a known length shortens a search.
    const why = `shorter than ${MIN_HS256_SECRET_BYTES} bytes; an HS256 secret needs at least ${MIN_HS256_SECRET_BYTES} random bytes, or a token's holder can guess it offline and sign any token (openssl rand -base64 32)`;
    return new WeftError("invalid_config", `WEFT_JWT_SECRET: ${why}`, { path: ["WEFT_JWT_SECRET"] });
  }
  const setting = typeof env.WEFT_JWKS === "string" && env.WEFT_JWKS ? "WEFT_JWKS" : typeof env.WEFT_JWKS_URL === "string" && env.WEFT_JWKS_URL ? "WEFT_JWKS_URL" : null;
  if (setting === null || (typeof env.WEFT_JWT_AUDIENCE === "string" && env.WEFT_JWT_AUDIENCE)) return null;
  return new WeftError("invalid_config", `WEFT_JWT_AUDIENCE: unset; tokens verified with ${setting} must name this deployment in their aud claim, or a token its issuer made for any other application would be taken: set WEFT_JWT_AUDIENCE`, { path: ["WEFT_JWT_AUDIENCE"] });
}

/**
 * The HS256 key of `WEFT_JWT_SECRET`, imported once per env (jose would import it on every verify).
 * @throws WeftError `invalid_config` for a secret {@link settingRefusal} refuses.
 */
const hmacKey = perEnv(async (env: WeftEnv) => {
  const refusal = settingRefusal(env, "HS256");
  if (refusal) throw refusal;
  return crypto.subtle.importKey("raw", new TextEncoder().encode(String(env.WEFT_JWT_SECRET)), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
});

/** The key set of `WEFT_JWKS`, parsed once per env; it keeps each key it imported. */
const localJwks = perEnv((env: WeftEnv) => createLocalJWKSet(JSON.parse(String(env.WEFT_JWKS))));

/** What a request that sent no credential is told; its challenge then carries no error code (RFC 6750 section 3.1). */
export const MISSING_TOKEN = "missing bearer token (Authorization: Bearer <token>)";

function unauthenticated(message: string): WeftError {
  return new WeftError("unauthenticated", message);
}

/** A credential naming a user id weft keeps for itself (`weft:...`, src/ids.ts): refused, whoever signed it. */
function reserved(userId: string, path: string[]): WeftError {
  return new WeftError("unauthenticated", `${path.join(".")}: the user id ${quotedValue(userId)} is reserved for weft (ids starting "${RESERVED_USER_PREFIX}"); use another`, { path });
}

function principalOfClaims(claims: JWTPayload): Principal {
  if (typeof claims.sub !== "string" || claims.sub === "") throw unauthenticated("token has no sub claim (the user id)");
  if (isReservedUserId(claims.sub)) throw reserved(claims.sub, ["sub"]);
  const roles = Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === "string") : [];
  // `exp` is required (verifiedClaims), so every JWT caller carries when its token expires.
  return { userId: claims.sub, name: typeof claims.name === "string" ? claims.name : claims.sub, roles, expiresAt: claims.exp! * 1000 };
}

/** The longest a verified token is taken on trust before its signature and claims are checked again (ms). */
const TRUSTED_TOKEN_MS = 60_000;
/** At most this many verified tokens are kept per env; the oldest goes first. */
const TRUSTED_TOKENS = 1000;

/**
 * Tokens verified lately, per env (so per key and issuer/audience settings), each with its
 * principal and the time it stops being taken on trust: never past its `exp` plus the clock skew,
 * where verifying would refuse it. A client sends the same token with every call; checking its
 * signature again each time costs more CPU than the rest of a read call's Worker half.
 */
const trustedTokens = perEnv((_env: WeftEnv) => new Map<string, { principal: Principal; until: number }>());

/**
 * Verifies a JWT against the configured key and claims.
 * @throws WeftError `unauthenticated` naming what failed (expired, audience, signature, ...).
 */
export async function verifyJwt(env: WeftEnv, token: string): Promise<Principal> {
  const trusted = trustedTokens(env);
  const kept = trusted.get(token);
  if (kept !== undefined) {
    if (Date.now() < kept.until) return kept.principal;
    trusted.delete(token);
  }
  const claims = await verifiedClaims(env, token);
  const principal = principalOfClaims(claims);
  // `exp` is required: verification refuses a token from (exp + skew) s on.
  const until = Math.min(Date.now() + TRUSTED_TOKEN_MS, (claims.exp! + CLOCK_SKEW_S) * 1000);
  if (trusted.size >= TRUSTED_TOKENS) trusted.delete(trusted.keys().next().value!);
  trusted.set(token, { principal, until });
  return principal;
}

/** The claims of a JWT whose signature and claims verify. */
async function verifiedClaims(env: WeftEnv, token: string): Promise<JWTPayload> {
  const options = {
    clockTolerance: CLOCK_SKEW_S,
    requiredClaims: ["exp"],
    ...(typeof env.WEFT_JWT_ISSUER === "string" && env.WEFT_JWT_ISSUER ? { issuer: env.WEFT_JWT_ISSUER } : {}),
    ...(typeof env.WEFT_JWT_AUDIENCE === "string" && env.WEFT_JWT_AUDIENCE ? { audience: env.WEFT_JWT_AUDIENCE } : {}),
  };
  // The setting whose key the token was checked against, for the refusal's words.
  let keyOf = "";
  try {
    let header: { alg?: string } = {};
    try {
      header = JSON.parse(atob(token.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/")));
    } catch {
      throw unauthenticated("token is not a JWT");
    }
    if (header.alg === "HS256" && typeof env.WEFT_JWT_SECRET === "string" && env.WEFT_JWT_SECRET) {
      keyOf = "WEFT_JWT_SECRET";
      return (await jwtVerify(token, await hmacKey(env), { ...options, algorithms: ["HS256"] })).payload;
    }
    const algorithms = ["RS256", "ES256"];
    const refusal = settingRefusal(env, "key set");
    if (refusal) throw refusal;
    if (typeof env.WEFT_JWKS === "string" && env.WEFT_JWKS) {
      keyOf = "WEFT_JWKS";
      return (await jwtVerify(token, localJwks(env), { ...options, algorithms })).payload;
    }
    if (typeof env.WEFT_JWKS_URL === "string" && env.WEFT_JWKS_URL) {
      keyOf = "WEFT_JWKS_URL";
      let set = remoteSets.get(env.WEFT_JWKS_URL);
      if (!set) remoteSets.set(env.WEFT_JWKS_URL, (set = createRemoteJWKSet(new URL(env.WEFT_JWKS_URL))));
      return (await jwtVerify(token, set, { ...options, algorithms })).payload;
    }
    throw unauthenticated(`no key is configured for ${JSON.stringify(header.alg)} tokens`);
  } catch (e) {
    if (e instanceof WeftError) throw e;
    if (e instanceof joseErrors.JWTExpired) throw unauthenticated("token expired");
    if (e instanceof joseErrors.JWTClaimValidationFailed) throw unauthenticated(`token claim ${JSON.stringify(e.claim)} is not acceptable: ${e.reason}`);
    if (e instanceof joseErrors.JOSEError) throw unauthenticated(`token refused: ${joseReason(e.code, keyOf)} (${e.code})`);
    throw unauthenticated("token could not be verified");
  }
}

/** What a jose error code means for the one who sent the token, naming the setting its key came from. */
function joseReason(code: string, keyOf: string): string {
  if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED") return `its signature does not verify with the key of ${keyOf}`;
  if (code === "ERR_JWKS_NO_MATCHING_KEY") return `no key of ${keyOf} matches its kid and alg`;
  if (code === "ERR_JOSE_ALG_NOT_ALLOWED") return `its alg is not one ${keyOf} verifies (HS256 with WEFT_JWT_SECRET; RS256 or ES256 with WEFT_JWKS or WEFT_JWKS_URL)`;
  if (code === "ERR_JWKS_TIMEOUT" || code === "ERR_JWKS_INVALID") return `the keys of ${keyOf} could not be read`;
  if (code === "ERR_JWS_INVALID" || code === "ERR_JWT_INVALID") return "it is not a well-formed JWT";
  return "it could not be verified";
}

/** SHA-256 of an API key, hex: what `WEFT_API_KEYS` stores instead of the key. */
export async function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}

/**
 * Finds the principal of an API key. `WEFT_API_KEYS` is JSON: `{ "<sha256 hex>": { userId, name?,
 * roles? } }`. Every stored hash is compared, in constant time, whatever matches.
 * @throws WeftError `unauthenticated` for an unknown key.
 */
export async function verifyApiKey(env: WeftEnv, key: string): Promise<Principal> {
  const table = apiKeyTable(env);
  if (typeof table === "string") throw new WeftError("invalid_config", `WEFT_API_KEYS: ${table}`, { path: ["WEFT_API_KEYS"] });
  const given = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  let found: Principal | null = null;
  for (const { stored, who } of table) {
    if (stored.byteLength === given.byteLength && crypto.subtle.timingSafeEqual(stored, given) && found === null) found = who;
  }
  if (!found) throw unauthenticated("unknown API key");
  if (isReservedUserId(found.userId)) throw reserved(found.userId, ["userId"]);
  return found;
}

/**
 * Why an entry of `WEFT_API_KEYS` is refused, or null: `userId` a non-empty string, `name` a string
 * and `roles` an array of strings when given. A `roles` of one string would be searched by letters
 * (`"sysadmin-readonly"` holds `"admin"`), and a missing `userId` would act as no one in particular.
 */
function entryRefusal(who: unknown): string | null {
  const w = (typeof who === "object" && who !== null ? who : {}) as { userId?: unknown; name?: unknown; roles?: unknown };
  if (typeof w.userId !== "string" || w.userId === "") return "userId: expected a non-empty string";
  if (w.name !== undefined && typeof w.name !== "string") return "name: expected a string";
  if (w.roles !== undefined && !(Array.isArray(w.roles) && w.roles.every((r) => typeof r === "string"))) return 'roles: expected an array of strings (["admin"])';
  return null;
}

/**
 * `WEFT_API_KEYS` parsed once per env: each stored hash as bytes with its principal; else why it
 * is refused (not JSON, or an entry, counted from 1 and never named by its hash, of another shape).
 */
const apiKeyTable = perEnv((env: WeftEnv): Array<{ stored: Uint8Array; who: Principal }> | string => {
  let table: Record<string, { userId: string; name?: string; roles?: string[] }>;
  try {
    table = typeof env.WEFT_API_KEYS === "string" && env.WEFT_API_KEYS ? JSON.parse(env.WEFT_API_KEYS) : {};
  } catch {
    return "not valid JSON";
  }
  if (typeof table !== "object" || table === null || Array.isArray(table)) return 'expected a JSON object { "<sha256 hex>": { "userId", "name"?, "roles"? } }';
  const entries = Object.entries(table);
  for (const [i, [, who]] of entries.entries()) {
    const refusal = entryRefusal(who);
    if (refusal) return `entry ${i + 1}: ${refusal}`;
  }
  return entries.map(([hash, who]) => ({
    stored: new Uint8Array((hash.match(/[0-9a-f]{2}/gi) ?? []).map((h) => parseInt(h, 16))),
    who: { userId: who.userId, name: who.name ?? who.userId, roles: who.roles ?? [] },
  }));
});

/**
 * The request's bearer token: `Authorization: Bearer`; on a WebSocket upgrade (browsers cannot set
 * headers there) else the `weft.bearer.` subprotocol (src/socket-token.ts), else `?access_token=`,
 * the fallback that leaves the token in URL logs. A header beats the URL, as `Authorization` always has.
 * @throws WeftError `unauthenticated` for a token subprotocol that is not one readable token.
 */
function bearerOf(req: Request): string | null {
  const header = req.headers.get("authorization");
  const m = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (m) return m[1]!;
  if (req.headers.get("upgrade")?.toLowerCase() !== "websocket") return null;
  return protocolToken(req.headers.get("sec-websocket-protocol")) ?? new URL(req.url).searchParams.get("access_token");
}

/** The token of the offered `weft.bearer.` subprotocol; null when none is offered. */
function protocolToken(header: string | null): string | null {
  const carried = offeredProtocols(header).filter((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (carried.length === 0) return null;
  const path = ["Sec-WebSocket-Protocol"];
  if (carried.length > 1) throw new WeftError("unauthenticated", `Sec-WebSocket-Protocol: ${carried.length} token subprotocols offered; offer one`, { path });
  const token = tokenOfProtocol(carried[0]!);
  if (token === null) throw new WeftError("unauthenticated", `Sec-WebSocket-Protocol: a token subprotocol is "${TOKEN_PROTOCOL_PREFIX}" then base64url of the token's UTF-8 bytes, without padding`, { path });
  return token;
}

const DEV_MODE_NOTICE = `on: no authentication, every request without a token acts as "${DEV_PRINCIPAL.userId}" (admin); local development only`;

/**
 * The caller a request acts as under `mode` (its {@link authMode}).
 * @throws WeftError `auth_not_configured` (mode "refuse"), `unauthenticated` (no, or a refused, credential).
 */
export async function requestCaller(env: WeftEnv, req: Request, mode: AuthMode): Promise<Caller> {
  if (mode === "refuse") {
    throw new WeftError(
      "auth_not_configured",
      'no authentication is configured: set WEFT_JWT_SECRET, WEFT_JWKS_URL or WEFT_API_KEYS (wrangler secret put), or WEFT_AUTH = "none" to run open on purpose',
    );
  }
  let principal: Principal;
  if (mode === "dev") {
    // Nothing here can verify a credential: one that was sent is refused, never taken for "dev".
    if (req.headers.has("authorization") || bearerOf(req) !== null) throw unauthenticated(DEV_CREDENTIAL_REFUSED);
    principal = DEV_PRINCIPAL;
  } else if (mode === "none") principal = ANONYMOUS;
  else {
    const token = bearerOf(req);
    if (!token) throw unauthenticated(MISSING_TOKEN);
    principal = token.split(".").length === 3 ? await verifyJwt(env, token) : await verifyApiKey(env, token);
  }
  return callerOf(env, principal);
}

/** The middleware: sets `c.var.caller` or answers 401/503; marks development-mode responses. */
export function authenticate(): MiddlewareHandler<AuthedEnv> {
  return async function authenticateRequest(c, next) {
    const mode = authMode(c.env, c.req.url);
    // Without a token to ask for, any page a browser opens could act as the caller: only on a host
    // weft is named by, and from its own origin (or a listed one), WebSocket upgrades and bodiless posts included.
    const refusal = mode === "dev" || mode === "none" ? tokenlessRefusal(new URL(c.req.url), c.req.header("origin") ?? null, c.env) : null;
    if (refusal !== null) throw new WeftError("origin_not_allowed", refusal);
    if (mode === "dev") c.header(DEV_MODE_HEADER, DEV_MODE_NOTICE);
    c.set("caller", await requestCaller(c.env, c.req.raw, mode));
    await next();
    // A response made elsewhere (the thread's WebSocket answers: 101, 426, 400) skips c.header's.
    c.res = markedDevMode(c.res, mode);
  };
}

/**
 * `res` with the development-mode header when `mode` is `dev` and it has none yet: a response made
 * outside the middleware's reach (a WebSocket answer, the playground page) carries it too.
 */
export function markedDevMode(res: Response, mode: AuthMode): Response {
  if (mode !== "dev" || res.headers.has(DEV_MODE_HEADER)) return res;
  const marked = new Response(res.body, res);
  marked.headers.set(DEV_MODE_HEADER, DEV_MODE_NOTICE);
  return marked;
}
