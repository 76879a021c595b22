/**
 * The MCP servers a thread's owner added (`POST /mcp-servers`), as that thread offers them: read
 * from the owner's account before each model step (a server added mid-thread is offered from the
 * next step; a removed one is no longer offered, and its sessions are closed), each listed as a
 * declared server is (src/remote/servers.ts). Only the owner's account is asked, so no other
 * user's servers reach the thread. A bearer token comes from the owner's account env only, never
 * the Worker's or the agent's: no deployment secret goes to a server a user chose.
 * @module
 */
import { WeftError } from "../errors.js";
import type { UserMcpServer } from "../account/mcp-servers.js";
import type { AnyToolDefinition } from "../tools/types.js";
import type { McpServerDefinition } from "./define.js";
import { type OAuthOptions, RemoteServers } from "./servers.js";

/** What {@link OwnServers} reads and how it lists. */
export interface OwnServersOptions {
  /** The owner's servers, as their account keeps them (asked before each model step). */
  list: () => Promise<UserMcpServer[]>;
  /** The registry's declared servers: a server the user added under one of their names is not offered (the declared one stands). */
  declared: Readonly<Record<string, McpServerDefinition>>;
  /** Whether a name is a local tool, prompt or agent (a remote tool of that name is refused). */
  taken: (name: string) => boolean;
  /** The owner's account env value `name` (a bearer token), or undefined when it is not set. */
  accountEnv: (name: string) => Promise<string | undefined>;
  /** `WEFT_CALL_TIMEOUT_MS`. */
  callTimeoutMs?: number;
  oauth: OAuthOptions;
}

/** The owner's own servers of one thread. */
export class OwnServers {
  private servers: RemoteServers | null = null;
  /** The definitions {@link servers} was made from (JSON): another list makes them again. */
  private made = "{}";
  private names: string[] = [];

  constructor(private readonly options: OwnServersOptions) {}

  /**
   * Reads the owner's servers and lists those not listed within their TTL. Never throws: an
   * account that cannot answer leaves the last list in place until the next step asks again.
   * @returns whether what the thread offers changed (catalogs built before are stale).
   */
  async sync(): Promise<boolean> {
    let list: UserMcpServer[];
    try {
      list = await this.options.list();
    } catch {
      return false;
    }
    const own = Object.fromEntries(list.filter((s) => !Object.hasOwn(this.options.declared, s.name)).map((s) => [s.name, s.definition]));
    const made = JSON.stringify(own);
    let changed = false;
    if (made !== this.made) {
      // A server removed or changed: its sessions end now, so nothing more is sent with its credentials.
      const old = this.servers;
      const oldNames = this.names;
      this.names = Object.keys(own);
      this.made = made;
      this.servers = this.names.length === 0 ? null : this.make(own);
      if (old) await Promise.all(oldNames.map((name) => old.reconnect(name)));
      changed = true;
    }
    if (this.servers && (await this.servers.refresh(this.names))) changed = true;
    return changed;
  }

  /** Every tool the owner's servers offer, by the name the model sees (empty until {@link sync}). */
  definitions(): Record<string, AnyToolDefinition> {
    const out: Record<string, AnyToolDefinition> = {};
    for (const name of this.names) Object.assign(out, this.servers?.definitionsFor(name));
    return out;
  }

  /** Drops the session of server `name` (its connection was revoked): the next request connects again. */
  async reconnect(name: string): Promise<void> {
    if (this.names.includes(name)) await this.servers?.reconnect(name);
  }

  private make(own: Record<string, McpServerDefinition>): RemoteServers {
    const { accountEnv, taken, callTimeoutMs, oauth } = this.options;
    const bearer = async (name: string) => {
      const value = await accountEnv(name);
      if (value === undefined) throw new WeftError("env_not_found", `environment value "${name}" is not set in your account env (PUT /account/env/${name})`, { name });
      return value;
    };
    return new RemoteServers(own, taken, bearer, Date.now, callTimeoutMs, oauth);
  }
}
