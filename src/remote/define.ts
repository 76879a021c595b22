/**
 * `defineMcpServer`: a remote MCP server whose tools agents and prompts may offer, declared in
 * `agents/mcp/<name>.ts`, and the checks the build and first use share.
 * @module
 */
import { WeftError } from "../errors.js";
import { checkStoredBytes } from "../limits.js";
import { isLoopback, isPrivateHost } from "./hosts.js";
import type { Effect } from "../tools/types.js";

/** Server names: the file name under `agents/mcp/` (the same rule as tool names). */
export const MCP_SERVER_NAME_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** Transports weft speaks to a remote server. */
export const MCP_TRANSPORTS = ["streamable-http", "sse"] as const;

/** Effects an author may give a remote tool (`reconcilable` needs a lookup a remote cannot give). */
export type RemoteEffect = Exclude<Effect, "reconcilable">;

/** How weft authenticates to the server; the value comes from the thread's env at call time. */
export interface McpBearerAuth {
  /** `Authorization: Bearer <value of env>`, sent only to the server's own origin. */
  type: "bearer";
  /** The env name holding the token (resolved like any variable, redacted like any secret). */
  env: string;
}

/** `auth` of a server whose users each authorize weft with OAuth 2.1. */
export interface McpOAuthAuth {
  /** Each user authorizes weft at the server's authorization server (authorization code with PKCE). */
  type: "oauth";
  /** Scopes asked for (space-joined in `scope`); default the server's `scopes_supported`, else none. */
  scopes?: readonly string[];
  /** A client registered with the authorization server beforehand; without it weft registers itself (RFC 7591). */
  clientId?: string;
  /** Worker secret holding the pre-registered client's secret (`client_secret_post`/`_basic`); none for a public client. Needs `authorizationServer`. */
  clientSecretEnv?: string;
  /**
   * The authorization server (its issuer URL) the client was registered at: discovery refuses any
   * other the server's metadata names, so the client's secret goes nowhere else. Required with `clientSecretEnv`.
   */
  authorizationServer?: string;
}

/** Options of {@link defineMcpServer}. */
export interface DefineMcpServerOptions {
  /**
   * The server's endpoint, `https://...`. `http://` only to a loopback host (`localhost`,
   * `*.localhost`, `127.0.0.0/8`, `[::1]`): anywhere else its headers and token would cross a
   * network in clear.
   */
  url: string;
  /** Default `streamable-http` (the current MCP transport); `sse` for the older HTTP+SSE one. */
  transport?: (typeof MCP_TRANSPORTS)[number];
  /**
   * Bearer token from the thread's env, or OAuth 2.1 per user (`{ type: "oauth" }`: each user
   * authorizes weft once; tokens kept in the user's account, docs/remote-mcp.md); none by default.
   */
  auth?: McpBearerAuth | McpOAuthAuth;
  /** The server's tools weft offers, by the server's names; default every tool it lists. */
  tools?: readonly string[];
  /**
   * Effect class per tool (the server's name), which wins over the server's annotations.
   * Otherwise `readOnlyHint: true` -> read, `idempotentHint: true` with `destructiveHint` said
   * (true or false) -> idempotent, else write (a bare `idempotentHint` too).
   */
  effects?: Readonly<Record<string, RemoteEffect>>;
  /** Whether a person approves each call first: `true` for every tool, or the server's names of the tools that need it. */
  needsApproval?: boolean | readonly string[];
  /**
   * Extra request headers, sent only to the server's own origin (never to a redirect's host).
   * Their values are secrets: any value of 6 characters or more is replaced by `[redacted]` in
   * everything the server answers (tool lists, results, errors) before weft keeps or shows it.
   * Prefer `auth` with an env name for a credential; a literal value lives in the bundle.
   */
  headers?: Readonly<Record<string, string>>;
  /** Deadline of one call, in milliseconds; default the tool deadline (`WEFT_CALL_TIMEOUT_MS`). */
  timeoutMs?: number;
}

/** What `defineMcpServer` returns: the options, marked. */
export type McpServerDefinition = DefineMcpServerOptions & {
  /** Set by `defineMcpServer`: what the registry checks a file under `agents/mcp/` exports. */
  readonly kind: "mcp";
};

/**
 * Declares a remote MCP server. Returns a plain object and connects to nothing; the generated
 * registry names it after its file, and agents list its tools as `<server>.<tool>` (or `<server>`
 * for every tool it offers).
 *
 * @example
 * export default defineMcpServer({ url: "https://mcp.example.com/mcp", tools: ["search"], effects: { search: "read" } });
 */
export function defineMcpServer(options: DefineMcpServerOptions): McpServerDefinition {
  return { ...options, kind: "mcp" };
}

/** Header names weft sets itself, which a definition may not override. */
const RESERVED_HEADERS = new Set(["host", "content-type", "accept", "content-length", "mcp-session-id", "mcp-protocol-version", "authorization", "cookie", "last-event-id"]);

/**
 * Checks a server definition's shape.
 * @throws WeftError `invalid_config` naming the server and the rule broken.
 */
export function checkMcpServerDefinition(name: string, def: unknown): asserts def is McpServerDefinition {
  const fail = (rule: string): never => {
    throw new WeftError("invalid_config", `mcp server "${name}": ${rule}`, { mcpServer: name });
  };
  if (!MCP_SERVER_NAME_PATTERN.test(name)) fail(`name must match ${MCP_SERVER_NAME_PATTERN.source}`);
  if (typeof def !== "object" || def === null || (def as { kind?: unknown }).kind !== "mcp") {
    fail("the default export must be the value returned by defineMcpServer({...})");
  }
  const d = def as Record<string, unknown>;
  let url: URL | null = null;
  try {
    url = typeof d.url === "string" ? new URL(d.url) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) fail("url must be an absolute http(s) URL");
  if (url!.protocol === "http:" && !isLoopback(url!.hostname)) fail(`url must be https:// (http:// only to a loopback host such as localhost): its headers and token would cross the network to ${url!.hostname} in clear`);
  if (url!.username !== "" || url!.password !== "") fail("url must not carry credentials; use auth or headers");
  if (d.transport !== undefined && !(MCP_TRANSPORTS as readonly unknown[]).includes(d.transport)) fail(`transport must be one of ${MCP_TRANSPORTS.join(", ")}`);
  if (d.auth !== undefined) {
    const a = d.auth as Record<string, unknown> | null;
    const envName = (v: unknown) => typeof v === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v);
    if (typeof a === "object" && a !== null && a.type === "oauth") {
      for (const key of Object.keys(a)) if (!["type", "scopes", "clientId", "clientSecretEnv", "authorizationServer"].includes(key)) fail(`auth.${key} is not an option of oauth (scopes, clientId, clientSecretEnv, authorizationServer)`);
      if (a.scopes !== undefined && (!Array.isArray(a.scopes) || a.scopes.some((s) => typeof s !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))) fail("auth.scopes must be an array of scope tokens");
      if (a.clientId !== undefined && (typeof a.clientId !== "string" || a.clientId === "" || a.clientId.length > 255)) fail("auth.clientId must be a client id of 1 to 255 characters");
      if (a.clientSecretEnv !== undefined && (!envName(a.clientSecretEnv) || a.clientId === undefined || a.authorizationServer === undefined)) fail("auth.clientSecretEnv must name a Worker secret, and needs auth.clientId and auth.authorizationServer (where that client is registered)");
      if (a.authorizationServer !== undefined) {
        const as = typeof a.authorizationServer === "string" && URL.canParse(a.authorizationServer) ? new URL(a.authorizationServer) : null;
        if (!as || !(as.protocol === "https:" || (as.protocol === "http:" && isLoopback(as.hostname))) || as.username !== "" || as.password !== "") fail("auth.authorizationServer must be the https:// issuer URL of the authorization server");
      }
    } else if (typeof a !== "object" || a === null || a.type !== "bearer" || !envName(a.env)) {
      fail('auth must be { type: "bearer", env: "<ENV_NAME>" } or { type: "oauth", scopes?, clientId?, clientSecretEnv? }');
    } else {
      for (const key of Object.keys(a)) if (key !== "type" && key !== "env") fail(`auth.${key} is not an option of bearer (env)`);
    }
  }
  if (d.tools !== undefined && (!Array.isArray(d.tools) || d.tools.some((t) => typeof t !== "string" || t === ""))) fail("tools must be an array of the server's tool names");
  if (d.effects !== undefined) {
    if (typeof d.effects !== "object" || d.effects === null || Array.isArray(d.effects)) fail("effects must map tool names to an effect");
    for (const [tool, effect] of Object.entries(d.effects as Record<string, unknown>)) {
      if (effect !== "read" && effect !== "write" && effect !== "idempotent") fail(`effects.${tool} must be read, write or idempotent; got ${JSON.stringify(effect)}`);
      if (Array.isArray(d.tools) && !d.tools.includes(tool)) fail(`effects names "${tool}", which tools does not allow`);
    }
  }
  if (d.needsApproval !== undefined && typeof d.needsApproval !== "boolean") {
    if (!Array.isArray(d.needsApproval) || d.needsApproval.some((t) => typeof t !== "string")) fail("needsApproval must be true, false, or an array of the server's tool names");
    for (const tool of d.needsApproval as string[]) if (Array.isArray(d.tools) && !d.tools.includes(tool)) fail(`needsApproval names "${tool}", which tools does not allow`);
  }
  if (d.headers !== undefined) {
    if (typeof d.headers !== "object" || d.headers === null || Array.isArray(d.headers)) fail("headers must map header names to strings");
    for (const [header, value] of Object.entries(d.headers as Record<string, unknown>)) {
      if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header)) fail(`headers: "${header}" is not a header name`);
      if (RESERVED_HEADERS.has(header.toLowerCase())) fail(`headers: "${header}" is set by weft (use auth for Authorization)`);
      if (typeof value !== "string" || /[\r\n]/.test(value)) fail(`headers.${header} must be a single-line string`);
    }
  }
  if (d.timeoutMs !== undefined && (!Number.isInteger(d.timeoutMs) || (d.timeoutMs as number) < 1)) fail("timeoutMs must be a positive integer (milliseconds)");
}

/**
 * Splits a name an agent lists into a remote reference: `<server>.<tool>` or a whole `<server>`.
 * Null when the name refers to no declared server.
 */
export function remoteReference(name: string, servers: Readonly<Record<string, unknown>> | undefined): { server: string; tool: string | null } | null {
  if (!servers) return null;
  const dot = name.indexOf(".");
  const server = dot < 0 ? name : name.slice(0, dot);
  if (!Object.hasOwn(servers, server)) return null;
  return { server, tool: dot < 0 ? null : name.slice(dot + 1) };
}

/** Most servers one user may add (`POST /mcp-servers`). */
export const MAX_USER_MCP_SERVERS = 16;

/** Most tool names a server a user adds may list in `tools`, `effects` or `needsApproval`, each. */
export const MAX_USER_MCP_TOOL_NAMES = 256;

/** Longest tool name in those lists, in characters (the MCP spec's tool names are 1 to 128). */
export const MAX_MCP_TOOL_NAME_LENGTH = 128;

/** Largest definition of a server a user adds, as stored (JSON), in bytes. */
export const MAX_USER_MCP_DEFINITION_BYTES = 64 * 1024;

/** Longest `timeoutMs` of a server a user adds (ms): one call holds its thread, billed as it waits, no longer than 10 minutes. */
export const MAX_USER_MCP_TIMEOUT_MS = 10 * 60_000;

/**
 * Checks a server a user adds at run time (`POST /mcp-servers`): the rules of a file under
 * `agents/mcp/` ({@link checkMcpServerDefinition}), and what a user may not ask of the Worker:
 * no loopback, private or link-local host (src/remote/hosts.ts), no `clientSecretEnv` (it names a Worker secret),
 * no literal `headers` (a credential goes in `auth` with an account env value), at most
 * {@link MAX_USER_MCP_TOOL_NAMES} names of at most {@link MAX_MCP_TOOL_NAME_LENGTH} characters in
 * `tools`, `effects` and `needsApproval`, a `timeoutMs` of at most {@link MAX_USER_MCP_TIMEOUT_MS},
 * and at most {@link MAX_USER_MCP_DEFINITION_BYTES} stored.
 * A bearer token's env is read from the user's own account env only, never the Worker's
 * (src/remote/tool-listing.ts).
 * @throws WeftError `invalid_request` naming the field (`details.path`) and the rule;
 * `payload_too_large` (path `definition`) when the definition is too large to keep.
 */
export function checkUserMcpServer(name: string, def: Record<string, unknown>): McpServerDefinition {
  const refuse = (path: (string | number)[], rule: string): never => {
    throw new WeftError("invalid_request", `${path.join(".")}: ${rule}`, { path });
  };
  for (const field of ["tools", "effects", "needsApproval"] as const) {
    const value = def[field];
    const names = Array.isArray(value) ? value : typeof value === "object" && value !== null ? Object.keys(value) : [];
    if (names.length > MAX_USER_MCP_TOOL_NAMES) refuse([field], `names ${names.length} tools, more than the ${MAX_USER_MCP_TOOL_NAMES} a server you add may`);
    const long = names.findIndex((t) => typeof t === "string" && t.length > MAX_MCP_TOOL_NAME_LENGTH);
    if (long >= 0) refuse(Array.isArray(value) ? [field, long] : [field, String(names[long]).slice(0, 40)], `a tool name is at most ${MAX_MCP_TOOL_NAME_LENGTH} characters`);
  }
  if (def.headers !== undefined) refuse(["headers"], "a server you add takes no literal headers; give a token through auth: { type: \"bearer\", env } and your account env (PUT /account/env/:name)");
  const auth = def.auth as Record<string, unknown> | undefined;
  if (auth && typeof auth === "object" && auth.clientSecretEnv !== undefined) refuse(["auth", "clientSecretEnv"], "names a Worker secret; a server you add uses dynamic client registration or a public clientId");
  const definition = { ...def, kind: "mcp" as const };
  try {
    checkMcpServerDefinition(name, definition);
  } catch (e) {
    if (!(e instanceof WeftError)) throw e;
    const rule = e.message.replace(/^mcp server "[^"]*": /, "");
    const field = /^(name|url|transport|auth|tools|effects|needsApproval|timeoutMs)\b(?:\.(\w+))?/.exec(rule);
    // The rule names its field first ("url must be..."): the path says it once.
    if (field) refuse([field[1]!, ...(field[2] ? [field[2]] : [])], rule.slice(field[0].length).trimStart());
    refuse(["name"], rule);
  }
  if (typeof def.timeoutMs === "number" && def.timeoutMs > MAX_USER_MCP_TIMEOUT_MS) refuse(["timeoutMs"], `at most ${MAX_USER_MCP_TIMEOUT_MS} (10 minutes) for a server you add`);
  if (isPrivateHost(new URL(String(def.url)).hostname)) refuse(["url"], "must not name a loopback, private or link-local host: a server you add is reached from the Worker, whose own machine and network are not yours to call");
  // Kept whole in one row of the user's account, and read by each of their threads.
  checkStoredBytes(JSON.stringify(definition), ["definition"], MAX_USER_MCP_DEFINITION_BYTES);
  return definition as McpServerDefinition;
}
