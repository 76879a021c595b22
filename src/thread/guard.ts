/**
 * What a thread guards on its way out: who may reach it (the owner; an admin may read), and which
 * secrets every outgoing payload is cleaned of. The env levels a thread's secrets come from are
 * the thread's own values, the agent's defaults, the owner's account, and the Worker's secrets.
 * @module
 */
import { WeftError } from "../errors.js";
import type { AgentDefinition } from "../run/agent.js";
import type { Caller } from "./api.js";
import { type AccountApi, accountOf } from "./account.js";
import { Redactor, type Secret, secretsOf, workerSecrets } from "./redact.js";
import type { EnvType } from "./store/env.js";
import type { ThreadStore } from "./store/index.js";
import type { ThreadMeta } from "./store/meta.js";

/** How long a direct call's scratch thread may live before its alarm removes it (ms). */
export const SCRATCH_TTL_MS = 10 * 60 * 1000;

/**
 * Whether `caller` may reach a thread owned by `owner` for `access`.
 * @throws WeftError `thread_not_found` otherwise: existence does not leak (never 403).
 */
export function checkAccess(owner: string | null, caller: Caller, access: "read" | "write"): void {
  if (owner !== null && owner === caller.userId) return;
  if (access === "read" && caller.admin) return;
  throw new WeftError("thread_not_found", "no such thread");
}

/** Parses the `x-weft-caller` header the Worker sets; null when it is missing or malformed. */
export function callerFromHeader(raw: string | null): Caller | null {
  if (!raw) return null;
  try {
    const c = JSON.parse(raw) as Caller;
    return typeof c.userId === "string" && Array.isArray(c.roles) ? c : null;
  } catch {
    return null;
  }
}

/** The owner's account env, cached by the thread and refreshed when it wakes for work. */
export class UserEnv {
  private values: Record<string, { value: string; type: EnvType }> = {};
  version = 0;

  constructor(private readonly account: () => AccountApi | null) {}

  get(name: string): { value: string; type: EnvType } | undefined {
    return Object.hasOwn(this.values, name) ? this.values[name] : undefined;
  }

  entries(): Array<[string, { value: string; type: EnvType }]> {
    return Object.entries(this.values);
  }

  /** Reloads from the account; a thread without an owner (or account binding) has none. */
  async refresh(): Promise<void> {
    const account = this.account();
    if (!account) return;
    this.values = await account.envValues();
    this.version++;
  }
}

/** The account stub of a thread's owner, when the Worker has the `ACCOUNT` binding. */
export function ownerAccount(env: Record<string, unknown>, meta: ThreadMeta | undefined): AccountApi | null {
  const ns = env.ACCOUNT as DurableObjectNamespace | undefined;
  return ns && meta?.userId ? accountOf(ns, meta.userId) : null;
}

/**
 * The redactor for a thread's secrets at every level, rebuilt only when one of them changed.
 */
export class ThreadSecrets {
  private cached: Redactor | null = null;
  private key = "";

  constructor(
    private readonly store: ThreadStore,
    private readonly workerEnv: Record<string, unknown>,
    private readonly userEnv: UserEnv,
    private readonly agent: () => AgentDefinition | undefined,
  ) {}

  /** The redactor last built, without touching storage (for logs, which any request may write). */
  last(): Redactor {
    return this.cached ?? this.redactor();
  }

  redactor(): Redactor {
    // Before the thread exists there is no env table (nor agent) yet.
    const own = this.agent() ? this.store.env.all() : [];
    const key = `${this.userEnv.version}|${this.agent() ? "a" : ""}|${own.map(([n, v]) => `${n}=${v.type}:${v.value.length}:${v.value}`).join("\u0000")}`;
    if (this.cached && key === this.key) return this.cached;
    const fromAgent: Secret[] = [];
    for (const [name, v] of Object.entries(this.agent()?.env ?? {})) {
      const entry = typeof v === "string" ? { value: v, type: "secret" } : { value: v.value, type: v.type ?? "secret" };
      if (entry.type === "secret") fromAgent.push({ name, value: entry.value });
    }
    this.cached = new Redactor([...secretsOf(own), ...fromAgent, ...secretsOf(this.userEnv.entries()), ...workerSecrets(this.workerEnv)]);
    this.key = key;
    return this.cached;
  }
}
