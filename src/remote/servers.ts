/**
 * A thread's remote MCP servers: one connection each, and each server's tool list cached for
 * {@link LIST_TTL_MS} as weft tool definitions. Listing is asynchronous and catalogs are built
 * synchronously, so a run refreshes the servers its place names (`refresh`) before it builds its
 * catalog, which then reads the cache (`definitionsFor`).
 * @module
 */
import { byteLength } from "../bytes.js";
import { WeftError, errorMessage } from "../errors.js";
import { compileOutputSchema } from "../tools/catalog.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { markResumable } from "../calls/suspend.js";
import { AUTHORIZATION_PARK, type McpAuthorizer } from "./authorizer.js";
import { RemoteConnection, SESSION_END_MS } from "./connection.js";
import type { RemoteToolInfo } from "./kept-tool.js";
import { connectTool } from "./connect-tool.js";
import { REFRESH_AHEAD_MS } from "./oauth.js";
import { type McpServerDefinition, remoteReference } from "./define.js";
import { remoteToolDefinition, remoteToolName } from "./remote-tools.js";

/** How long a server's tool list is used before it is listed again, in milliseconds. */
export const LIST_TTL_MS = 5 * 60_000;

/**
 * How long a failed listing stands before the server is tried again, in milliseconds: a server
 * that hangs would otherwise add its deadline to every model step that names it.
 */
export const FAILED_LIST_RETRY_MS = 30_000;

/** Longest remote tool description offered to the model, in characters; a longer one is cut. */
export const MAX_REMOTE_DESCRIPTION_CHARS = 2000;

/** Largest remote `inputSchema` or `outputSchema` (its JSON text, in characters); a tool with a larger one is refused. */
export const MAX_REMOTE_SCHEMA_CHARS = 64 * 1024;

/**
 * A remote tool weft does not offer, with the code and reason; or one it offers otherwise than
 * the server lists it (`mcp_protocol_error`: an `outputSchema` weft cannot compile, so results are not checked).
 */
export interface RefusedRemoteTool {
  server: string;
  tool: string;
  code: "mcp_name_collision" | "mcp_protocol_error";
  reason: string;
}

interface Listing {
  /** When it was listed (epoch ms); -Infinity once the server announced `tools/list_changed`. */
  at: number;
  /** Definitions by the server's tool name, with the name the model sees. */
  tools: Map<string, { name: string; def: AnyToolDefinition }>;
  /** An OAuth server's `<server>__connect`, offered whether or not the server could list. */
  connect?: { name: string; def: AnyToolDefinition };
  /** Tools refused, and tools offered otherwise than listed (see {@link RefusedRemoteTool}). */
  refused: RefusedRemoteTool[];
  /** Why listing failed (the server offers nothing until it lists again). */
  error?: WeftError;
  /** Bytes of what it keeps of the server's tools (their descriptions and schemas, output schemas included, as JSON text): see {@link RemoteServers.keptBytes}. */
  bytes: number;
}

/** How a thread's OAuth servers get tokens, and how a parked call's reason is read. */
export interface OAuthOptions {
  /** The owner's account (src/remote/authorizer.ts); without it OAuth servers answer `mcp_auth_required`. */
  authorizer?: McpAuthorizer;
  /** The park reason of a stored call, if it is parked. */
  parkReason?: (callId: string) => string | undefined;
}

/** Longest reason kept for a refused tool, in characters. */
const MAX_REASON_CHARS = 1000;

/** Why the definition's outputSchema does not compile as the catalog compiles it (`<code>: <message>`), or null when it does or there is none. */
function uncompiledOutput(name: string, made: AnyToolDefinition): string | null {
  try {
    compileOutputSchema(name, made);
    return null;
  } catch (e) {
    return e instanceof WeftError ? `${e.code}: ${e.message}` : errorMessage(e);
  }
}

/** The remote servers of one thread. */
export class RemoteServers {
  private readonly connections = new Map<string, RemoteConnection>();
  private readonly listings = new Map<string, Listing>();

  /**
   * `servers`: the registry's `mcpServers`; `taken`: whether a name is already a local tool,
   * prompt or agent (a remote tool of that name is refused, never shadowing it); `env`: an env
   * value as thread code receives it (a bearer token, then held by the thread's redactor);
   * `callTimeoutMs`: the deployment's call deadline (`WEFT_CALL_TIMEOUT_MS`), past which no answer is read.
   */
  constructor(
    private readonly servers: Readonly<Record<string, McpServerDefinition>>,
    private readonly taken: (name: string) => boolean,
    private readonly env: (name: string) => Promise<string> = async (name) => {
      throw new WeftError("env_not_found", `environment value "${name}" is not set for this thread`, { name });
    },
    private readonly now: () => number = Date.now,
    private readonly callTimeoutMs?: number,
    private readonly oauth: OAuthOptions = {},
  ) {}

  /** The declared servers `names` refer to (as `<server>.<tool>` or `<server>`), each once. */
  serversIn(names: readonly string[] | undefined): string[] {
    const out = new Set<string>();
    for (const name of names ?? []) {
      const ref = remoteReference(name, this.servers);
      if (ref) out.add(ref.server);
    }
    return [...out];
  }

  /**
   * Lists each of `servers` whose list is missing, older than {@link LIST_TTL_MS}, or failed more
   * than {@link FAILED_LIST_RETRY_MS} ago.
   * Never throws: a server that fails to list offers no tools, and says why in {@link problems}.
   * @returns whether any list changed (catalogs built from the old ones are stale).
   */
  async refresh(servers: readonly string[]): Promise<boolean> {
    const due = servers.filter((s) => {
      const listing = this.listings.get(s);
      return !listing || this.now() - listing.at >= (listing.error !== undefined ? FAILED_LIST_RETRY_MS : LIST_TTL_MS);
    });
    if (due.length === 0) return false;
    await Promise.all(due.map(async (server) => this.listings.set(server, await this.list(server))));
    return true;
  }

  /**
   * The definitions a listed name offers, by the name the model sees; empty until listed. A name
   * two servers both make (`a` offering `b__c`, `a__b` offering `c`) is offered by neither
   * (said in {@link problems}).
   */
  definitionsFor(name: string): Record<string, AnyToolDefinition> {
    const ref = remoteReference(name, this.servers);
    const listing = ref && this.listings.get(ref.server);
    if (!ref || !listing) return {};
    const shared = this.sharedNames();
    const out: Record<string, AnyToolDefinition> = {};
    for (const [remote, tool] of listing.tools) if ((ref.tool === null || ref.tool === remote) && !shared.has(tool.name)) out[tool.name] = tool.def;
    if (listing.connect && !shared.has(listing.connect.name)) out[listing.connect.name] = listing.connect.def;
    return out;
  }

  /**
   * Bytes of every list kept here: each offered tool's names, description, `inputSchema` and
   * `outputSchema` as JSON text, the fields its definition holds. Each server's is under its listing's bound
   * (`MAX_LIST_BYTES` in src/remote/connection.ts), since nothing else of the list is kept.
   */
  keptBytes(): number {
    let bytes = 0;
    for (const listing of this.listings.values()) bytes += listing.bytes;
    return bytes;
  }

  /** Names the model would see that more than one listed server makes, with those servers. */
  private sharedNames(): Map<string, string[]> {
    const by = new Map<string, string[]>();
    for (const [server, listing] of this.listings) {
      for (const name of [...[...listing.tools.values()].map((t) => t.name), ...(listing.connect ? [listing.connect.name] : [])]) by.set(name, [...(by.get(name) ?? []), server]);
    }
    return new Map([...by].filter(([, servers]) => servers.length > 1));
  }

  /** Drops the server's list: the next {@link refresh} lists it again (after a connection was made). */
  forget(server: string): void {
    this.listings.delete(server);
  }

  /** Drops the server's list and its session: the next {@link refresh} connects and lists again (a connection made or revoked since). */
  async reconnect(server: string): Promise<void> {
    this.listings.delete(server);
    const connection = this.connections.get(server);
    this.connections.delete(server);
    await connection?.close();
  }

  /** Lets go of every server's connection, those made later too: each session is closed, and ended at its server, once no request uses it. */
  retire(): void {
    this.retired = true;
    for (const connection of this.connections.values()) connection.retire();
  }

  private retired = false;

  /**
   * Ends every server's session now, at the server too (MCP's session termination: the `DELETE`),
   * and lets go of every connection as {@link retire} does, for a thread being removed. Resolves
   * once each `DELETE` is answered or cut, within {@link SESSION_END_MS} (a session still
   * connecting is ended once connected, not waited for); never rejects, whatever a server answers.
   * An evicted Durable Object has no such hook: its sessions end at their servers' own timeouts.
   */
  async end(): Promise<void> {
    const ended = [...this.connections.values()].map((connection) => connection.close(true).catch(() => undefined));
    this.retire();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(ended), new Promise((resolve) => (timer = setTimeout(resolve, SESSION_END_MS)))]);
    clearTimeout(timer);
  }

  /** The authorizer of OAuth servers. @throws WeftError `mcp_auth_required` without one. */
  private authorizer(): McpAuthorizer {
    if (!this.oauth.authorizer) throw new WeftError("mcp_auth_required", "OAuth connections need the thread's owner account (no authorizer here)");
    return this.oauth.authorizer;
  }

  /**
   * An OAuth server's tool as resumable: a call parked for authorization ({@link AUTHORIZATION_PARK})
   * waits until the user holds a token; any other parked call of it waits for a person as usual.
   */
  private resumable(server: string, def: McpServerDefinition, tool: AnyToolDefinition): AnyToolDefinition {
    if (def.auth?.type !== "oauth") return tool;
    return markResumable(tool, {
      stillWaiting: async (callId) => {
        if (!this.oauth.parkReason?.(callId)?.startsWith(AUTHORIZATION_PARK)) return true;
        return !(await this.authorizer().connected(server, def));
      },
    });
  }

  /**
   * Why servers offer fewer tools than they list: failed listings and refused tools, in the order
   * the servers are defined (listings land in the order they finish, which timing decides).
   */
  problems(): Array<RefusedRemoteTool | { server: string; code: string; reason: string }> {
    const shared = this.sharedNames();
    return Object.keys(this.servers).flatMap((server) => {
      const l = this.listings.get(server);
      if (!l) return [];
      const clashes: RefusedRemoteTool[] = [...l.tools]
        .filter(([, t]) => shared.has(t.name))
        .map(([remote, t]) => ({ server, tool: remote, code: "mcp_name_collision", reason: `"${t.name}" is also made by mcp server ${shared.get(t.name)!.filter((s) => s !== server).map((s) => `"${s}"`).join(", ")}; neither is offered` }));
      return [...(l.error ? [{ server, code: l.error.code, reason: l.error.message }] : []), ...l.refused, ...clashes];
    });
  }

  private connection(server: string): RemoteConnection {
    let connection = this.connections.get(server);
    if (!connection) {
      const def = this.servers[server]!;
      connection = new RemoteConnection(
        server,
        def,
        async (rejected) => {
          if (def.auth?.type === "oauth") {
            const { token, expiresAt } = await this.authorizer().token(server, def, rejected);
            return { headers: { ...def.headers, Authorization: `Bearer ${token}` }, ...(expiresAt !== null ? { until: expiresAt - REFRESH_AHEAD_MS } : {}) };
          }
          return { headers: { ...def.headers, ...(def.auth?.type === "bearer" ? { Authorization: `Bearer ${await this.env(def.auth.env)}` } : {}) } };
        },
        this.callTimeoutMs,
      );
      // The server said its list changed: it is listed again before the next model step.
      connection.onListChanged = () => {
        const listing = this.listings.get(server);
        if (listing) listing.at = -Infinity;
      };
      this.connections.set(server, connection);
      if (this.retired) connection.retire();
    }
    return connection;
  }

  private async list(server: string): Promise<Listing> {
    const def = this.servers[server]!;
    const connection = this.connection(server);
    const connectName = def.auth?.type === "oauth" ? remoteToolName(server, "connect") : null;
    const connect =
      connectName !== null && !this.taken(connectName)
        ? { name: connectName, def: this.resumable(server, def, connectTool(server, () => this.authorizer().token(server, def), () => this.forget(server))) }
        : undefined;
    let tools: RemoteToolInfo[];
    try {
      tools = await connection.listTools();
    } catch (e) {
      const error = e instanceof WeftError ? e : new WeftError("mcp_protocol_error", `mcp server "${server}": ${errorMessage(e)}`, { mcpServer: server });
      return { at: this.now(), tools: new Map(), refused: [], error, bytes: 0, ...(connect ? { connect } : {}) };
    }
    const listing: Listing = { at: this.now(), tools: new Map(), refused: [], bytes: 0, ...(connect ? { connect } : {}) };
    const seen = new Set<string>(connect ? [connect.name] : []);
    // A reason may quote the server's schema (a refused pattern, twice): kept short, since listings are kept.
    const refuse = (tool: string, code: RefusedRemoteTool["code"], reason: string) =>
      listing.refused.push({ server, tool, code, reason: reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}...` : reason });
    for (const tool of tools) {
      if (def.tools && !def.tools.includes(tool.name)) continue;
      const name = remoteToolName(server, tool.name);
      if (name === null) refuse(tool.name, "mcp_protocol_error", `the tool name "${tool.name}" makes no valid tool name as ${server}__<name>`);
      else if (this.taken(name)) refuse(tool.name, "mcp_name_collision", `"${name}" is already a local tool, prompt or agent`);
      else if (seen.has(name)) refuse(tool.name, "mcp_name_collision", `"${name}" is the name of another tool of the server`);
      else if (JSON.stringify(tool.inputSchema ?? null).length > MAX_REMOTE_SCHEMA_CHARS) {
        refuse(tool.name, "mcp_protocol_error", `its inputSchema is larger than ${MAX_REMOTE_SCHEMA_CHARS} characters`);
      } else if (tool.outputSchema !== undefined && JSON.stringify(tool.outputSchema).length > MAX_REMOTE_SCHEMA_CHARS) {
        refuse(tool.name, "mcp_protocol_error", `its outputSchema is larger than ${MAX_REMOTE_SCHEMA_CHARS} characters`);
      } else {
        seen.add(name);
        // Every description goes to the model on every step: a server's essay is cut.
        const description = tool.description && tool.description.length > MAX_REMOTE_DESCRIPTION_CHARS ? `${tool.description.slice(0, MAX_REMOTE_DESCRIPTION_CHARS)}...` : tool.description;
        let kept: RemoteToolInfo = { ...tool, ...(description !== undefined ? { description } : {}) };
        let made = remoteToolDefinition(server, def, kept, connection);
        const uncompiled = uncompiledOutput(name, made);
        if (uncompiled !== null) {
          // Offered unchecked, as before weft checked results, and said: checking is the
          // specification's SHOULD, and refusing would take away a tool that works.
          refuse(tool.name, "mcp_protocol_error", `its outputSchema cannot be compiled, so its results are not checked: ${uncompiled}`);
          const { outputSchema: _, ...rest } = kept;
          kept = rest;
          made = remoteToolDefinition(server, def, kept, connection);
        }
        listing.bytes += byteLength(JSON.stringify([name, tool.name, description ?? "", tool.inputSchema, kept.outputSchema ?? null]));
        listing.tools.set(tool.name, { name, def: this.resumable(server, def, made) });
      }
    }
    // An allowed tool the server does not list is said, not silently missing.
    for (const allowed of def.tools ?? []) {
      if (!tools.some((t) => t.name === allowed)) refuse(allowed, "mcp_protocol_error", "the tools allow-list names it, but the server does not list it");
    }
    return listing;
  }
}
