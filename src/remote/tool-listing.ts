/**
 * The remote MCP tools `GET /v1/tools` lists beside the local ones, for one user: each declared
 * server listed as a thread lists it (src/remote/servers.ts: the same allow-list, effects,
 * collisions, caps), outside any thread. A bearer token resolves from the user's account env,
 * then the Worker's (no agent or thread level applies outside a thread); an OAuth server uses the
 * user's own connection and starts no authorization (not connected: only `<server>__connect`, and
 * the reason). What each server says is cleaned of the token sent to it (by its connection,
 * src/remote/connection.ts) before it is shown, and of no other: a server a user adds says back
 * what its user chose, so cleaning it of another server's token (a Worker secret) would tell that
 * user whether a guess is that token.
 * @module
 */
import { accountOf } from "../account/api.js";
import { WeftError } from "../errors.js";
import { perEnv } from "../per-env.js";
import { NO_USER_ENV, resolveEnv } from "../secrets/env.js";
import { ToolCatalog, type ToolListing } from "../tools/catalog.js";
import { type McpAuthorizer, accountAuthorizer } from "./authorizer.js";
import type { McpServerDefinition } from "./define.js";
import { RemoteServers } from "./servers.js";
import { keepWithin } from "./kept-listings.js";

/** A remote tool as `GET /v1/tools` lists it: a {@link ToolListing} and the server it comes from. */
export interface RemoteToolListing extends ToolListing {
  /** The server's name (its file name under `agents/mcp/`). */
  server: string;
}

/** Why a server offers fewer tools than it lists, or none: the code and the reason (as a thread's run records it). */
export interface RemoteListingProblem {
  /** The server's name. */
  server: string;
  /** The server's name of the tool, when one tool is refused rather than the whole server. */
  tool?: string;
  /** weft's error code (`mcp_unreachable`, `mcp_protocol_error`, `mcp_name_collision`, `mcp_auth_required`, `invalid_config`, ...). */
  code: string;
  /** What went wrong, for people (no token or declared header value in it). */
  reason: string;
}

interface UserServers {
  servers: RemoteServers;
  /** The servers the user added (`POST /mcp-servers`), and the definitions they were made from (made again when those change). */
  own: { servers: RemoteServers; made: string } | null;
  authorizer: McpAuthorizer;
  /**
   * Whether the user held a connection to each OAuth server when it was listed (a change lists it
   * again at once), per set of servers: those of definitions since replaced go with them, so what
   * is kept does not grow with each URL a user gives their servers.
   */
  connected: WeakMap<RemoteServers, Map<string, boolean>>;
}

const perUser = perEnv((_env: object) => new Map<string, UserServers>());

/** Options of {@link listRemoteTools}. */
export interface RemoteListingOptions {
  /** The registry's declared servers. */
  servers: Readonly<Record<string, McpServerDefinition>>;
  /** The servers this user added (`POST /mcp-servers`): their bearer tokens come from the user's account env only. */
  own?: Readonly<Record<string, McpServerDefinition>>;
  /** Whether a name is a local tool, prompt or agent (a remote tool of that name is refused). */
  taken: (name: string) => boolean;
  /** The Worker's env (vars, secrets, the `ACCOUNT` binding). */
  env: Readonly<Record<string, unknown>>;
  userId: string;
  /** `WEFT_CALL_TIMEOUT_MS`, the deadline of a listing. */
  callTimeoutMs?: number;
}

/**
 * The tools `options.userId` is offered by the declared servers and by those the user added
 * (`options.own`), sorted by name, and the problems of those that list fewer or none. Never throws for a server's failure: that server's tools are
 * missing and its problem says why.
 */
export async function listRemoteTools(options: RemoteListingOptions): Promise<{ tools: RemoteToolListing[]; problems: RemoteListingProblem[] }> {
  const kept = perUser(options.env as object);
  let user = kept.get(options.userId);
  if (!user) {
    user = serversOf(options);
    // Kept while it lists, so the user's requests meanwhile share its sessions; bounded below once listed.
    kept.set(options.userId, user);
  }
  const declared = await listed(user, user.servers, options.servers);
  // A server the user added under a name a deploy has since declared: the declared one stands.
  const own = Object.fromEntries(Object.entries(options.own ?? {}).filter(([name]) => !Object.hasOwn(options.servers, name)));
  const shadowed = Object.keys(options.own ?? {}).filter((name) => Object.hasOwn(options.servers, name));
  const made = JSON.stringify(own);
  if (user.own?.made !== made) {
    // The servers of definitions since changed or removed: their sessions end.
    user.own?.servers.retire();
    user.own = Object.keys(own).length === 0 ? null : { servers: ownServersOf(options, own, user.authorizer), made };
  }
  const added = user.own ? await listed(user, user.own.servers, own) : { tools: [], problems: [] };
  // What the isolate keeps over all users is bounded in bytes as well as users (src/remote/kept-listings.ts).
  // The sessions of a user no longer kept end (once no request of theirs uses them). A user dropped
  // while this listed (its servers retired) is not kept again: another request may keep a new one.
  const ownBytes = (u: UserServers) => u.own?.servers.keptBytes() ?? 0;
  const dropped = kept.get(options.userId) !== user ? [] : keepWithin(kept, options.userId, user, (u) => u.servers.keptBytes() + ownBytes(u), undefined, undefined, ownBytes);
  for (const gone of dropped) {
    gone.servers.retire();
    gone.own?.servers.retire();
  }
  const tools = [...declared.tools, ...added.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const problems = [...declared.problems, ...added.problems, ...shadowed.map((server) => ({ server, code: "mcp_name_collision", reason: `a server you added is named "${server}", like a server in agents/mcp/; the declared one is listed` }))];
  return { tools, problems };
}

/** The tools and problems of `servers`, listed through `through` (each as a thread lists it). */
async function listed(user: UserServers, through: RemoteServers, servers: Readonly<Record<string, McpServerDefinition>>): Promise<{ tools: RemoteToolListing[]; problems: RemoteListingProblem[] }> {
  const names = Object.keys(servers);
  if (names.length === 0) return { tools: [], problems: [] };
  // A connection made or revoked since the last listing: that server's list is stale whatever its age.
  let connected = user.connected.get(through);
  if (!connected) user.connected.set(through, (connected = new Map()));
  await Promise.all(
    names.map(async (server) => {
      const def = servers[server]!;
      if (def.auth?.type !== "oauth") return;
      const now = await user.authorizer.connected(server, def).catch(() => false);
      const key = `${server}\n${def.url}`;
      if (connected.has(key) && connected.get(key) !== now) await through.reconnect(server);
      connected.set(key, now);
    }),
  );
  await through.refresh(names);
  const tools: RemoteToolListing[] = [];
  const problems: RemoteListingProblem[] = through.problems().map((p) => ({ ...p }));
  for (const server of names) {
    const catalog = new ToolCatalog(through.definitionsFor(server));
    for (const name of catalog.names()) {
      try {
        catalog.get(name);
      } catch (e) {
        const tool = (catalog.definition(name).annotations as { mcpTool?: string } | undefined)?.mcpTool;
        problems.push({ server, ...(tool !== undefined ? { tool } : {}), code: e instanceof WeftError ? e.code : "invalid_config", reason: e instanceof Error ? e.message : String(e) });
      }
    }
    for (const listing of catalog.list()) tools.push({ ...listing, server });
  }
  return { tools, problems };
}

/** A user's servers: bearer tokens from their account env then the Worker's, OAuth through their account without starting an authorization. */
function serversOf(options: RemoteListingOptions): UserServers {
  const { env, userId } = options;
  const ns = env.ACCOUNT as DurableObjectNamespace | undefined;
  const user = ns ? { get: async (id: string, name: string) => (await accountOf(ns, id).envValues())[name] } : NO_USER_ENV;
  const bearer = async (name: string) => {
    const resolved = await resolveEnv({ thread: () => undefined, userId, user, worker: env }, name);
    if (!resolved) throw new WeftError("env_not_found", `environment value "${name}" is not set for this user or the Worker`, { name });
    return resolved.value;
  };
  const authorizer = accountAuthorizer(ns, userId, "", false);
  return { servers: new RemoteServers(options.servers, options.taken, bearer, Date.now, options.callTimeoutMs, { authorizer }), own: null, authorizer, connected: new WeakMap() };
}

/** The servers a user added: a bearer token from their account env only, so no Worker secret is ever sent to a server a user chose. */
function ownServersOf(options: RemoteListingOptions, own: Readonly<Record<string, McpServerDefinition>>, authorizer: McpAuthorizer): RemoteServers {
  const ns = options.env.ACCOUNT as DurableObjectNamespace | undefined;
  const bearer = async (name: string) => {
    const entry = ns ? (await accountOf(ns, options.userId).envValues())[name] : undefined;
    if (!entry) throw new WeftError("env_not_found", `environment value "${name}" is not set in your account env (PUT /account/env/${name})`, { name });
    return entry.value;
  };
  return new RemoteServers(own, options.taken, bearer, Date.now, options.callTimeoutMs, { authorizer });
}
