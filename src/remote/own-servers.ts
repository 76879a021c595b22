/**
 * The MCP servers a thread's owner added (`POST /mcp-servers`), as that thread offers them: read
 * from the owner's account once, then again after the account says they changed (it tells the
 * thread before it answers the add or removal), so a server added mid-thread is offered from the
 * next model step and a removed one is no longer offered (its sessions are closed); each listed
 * as a declared server is (src/remote/servers.ts). Only the owner's account is asked, so no other
 * user's servers reach the thread. A bearer token comes from the owner's account env only, never
 * the Worker's or the agent's: no deployment secret goes to a server a user chose.
 * @module
 */
import { WeftError } from "../errors.js";
import type { UserMcpServer } from "../account/types.js";
import { markResumable, resumableOf } from "../calls/suspend.js";
import type { ToolResult } from "../protocol.js";
import type { AnyToolDefinition, ToolCallContext } from "../tools/types.js";
import type { McpServerDefinition } from "./define.js";
import { type OAuthOptions, RemoteServers } from "./servers.js";

/** Most tools of removed servers kept for calls made before their removal; the oldest go first. */
export const MAX_GONE_TOOLS = 256;

/** What {@link OwnServers} reads and how it lists. */
export interface OwnServersOptions {
  /** The owner's servers, as their account keeps them; the thread is told of each later change. */
  list: () => Promise<UserMcpServer[]>;
  /**
   * Change notices received from the owner's account so far (its env values or servers changed):
   * the list is read again only after a new one. Undefined: no notices come, read before each step.
   */
  generation: () => number | undefined;
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
  /** Whether the owner's list was read in this object's life (a restart reads it again). */
  private synced = false;
  /** The notice count the list was read at. */
  private readAt: number | undefined;
  /** Tools of servers removed or changed since this object began, as offered then (they refuse to run). */
  private readonly gone = new Map<string, AnyToolDefinition>();
  /** Each listed definition as offered (its execute checks first that the server is still the owner's). */
  private readonly offered = new WeakMap<AnyToolDefinition, AnyToolDefinition>();

  constructor(private readonly options: OwnServersOptions) {}

  /**
   * Reads the owner's servers (the first time, and after the account said they changed) and lists
   * those not listed within their TTL. Never throws: an account that cannot answer leaves the last
   * list in place until the next step asks again.
   * @returns whether what the thread offers changed (catalogs built before are stale).
   */
  async sync(): Promise<boolean> {
    const generation = this.options.generation();
    let changed = false;
    if (!this.synced || generation === undefined || generation !== this.readAt) {
      try {
        changed = await this.read(await this.options.list(), generation);
      } catch {
        // The account could not answer: the last list stands until the next step asks again.
      }
    }
    if (this.servers && (await this.servers.refresh(this.names))) changed = true;
    return changed;
  }

  /** Takes the owner's `list`, read at notice count `generation`; whether the servers changed. */
  private async read(list: UserMcpServer[], generation: number | undefined): Promise<boolean> {
    this.synced = true;
    this.readAt = generation;
    const own = this.ownOf(list);
    const made = JSON.stringify(own);
    let changed = false;
    if (made !== this.made) {
      // A server removed or changed: its sessions end now, so nothing more is sent with its credentials.
      const old = this.servers;
      const oldNames = this.names;
      // Its tools stay known to calls made before (a person's decision, recovery), which then refuse to run.
      for (const name of oldNames) for (const [tool, def] of Object.entries(old?.definitionsFor(name) ?? {})) this.gone.set(tool, this.offer(name, def));
      while (this.gone.size > MAX_GONE_TOOLS) this.gone.delete(this.gone.keys().next().value!);
      this.names = Object.keys(own);
      this.made = made;
      this.servers = this.names.length === 0 ? null : this.make(own);
      if (old) await Promise.all(oldNames.map((name) => old.reconnect(name)));
      changed = true;
    }
    return changed;
  }

  /**
   * Every tool the owner's servers offer, by the name the model sees (empty until {@link sync}).
   * A call of one asks the owner's account first whether the server is still theirs, as it was
   * listed: a call made before the server was removed or replaced, and run after (approved, or
   * recovered after a restart), sends nothing and is refused.
   */
  definitions(): Record<string, AnyToolDefinition> {
    const out: Record<string, AnyToolDefinition> = {};
    for (const name of this.names) {
      for (const [tool, def] of Object.entries(this.servers?.definitionsFor(name) ?? {})) out[tool] = this.offer(name, def);
    }
    return out;
  }

  /** Why the owner's servers offer fewer tools than they list (as {@link RemoteServers.problems}). */
  problems(): ReturnType<RemoteServers["problems"]> {
    return this.servers?.problems() ?? [];
  }

  /**
   * The tools of servers removed or changed since, for calls made before (looked up at rest: a
   * person's decision, recovery): approved, one refuses to run and sends nothing; denied, it ends.
   * Never offered to a model.
   */
  removed(): Record<string, AnyToolDefinition> {
    return Object.fromEntries(this.gone);
  }

  private offer(server: string, def: AnyToolDefinition): AnyToolDefinition {
    let offered = this.offered.get(def);
    if (!offered) {
      const made = this.made;
      const execute = async (state: unknown, args: Record<string, unknown> | undefined, call: ToolCallContext): Promise<ToolResult> => {
        const now = JSON.stringify(this.ownOf(await this.options.list())[server] ?? null);
        if (now !== JSON.stringify((JSON.parse(made) as Record<string, unknown>)[server] ?? null)) {
          return { status: "error", error: `unknown_tool: mcp server "${server}" was removed or changed by its user after this call was made; nothing was sent` };
        }
        // A user's own server's tools are remote tools: each has a body (remote-tools.ts).
        return def.execute!(state as never, args as never, call);
      };
      offered = { ...def, execute } as AnyToolDefinition;
      const resumable = resumableOf(def);
      if (resumable) markResumable(offered, resumable);
      this.offered.set(def, offered);
    }
    return offered;
  }

  /** The owner's servers by name, without those named like a declared server (the declared one stands). */
  private ownOf(list: UserMcpServer[]): Record<string, McpServerDefinition> {
    return Object.fromEntries(list.filter((s) => !Object.hasOwn(this.options.declared, s.name)).map((s) => [s.name, s.definition]));
  }

  /** Drops the session of server `name` (its connection was revoked): the next request connects again. */
  async reconnect(name: string): Promise<void> {
    if (this.names.includes(name)) await this.servers?.reconnect(name);
  }

  /** Ends the sessions of the owner's servers at their servers, for a thread being removed ({@link RemoteServers.end}). Never rejects. */
  async end(): Promise<void> {
    await this.servers?.end();
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
