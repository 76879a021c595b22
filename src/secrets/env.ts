/**
 * Environment resolution: `state.env(name)` asks five levels in order and the first that holds the
 * name answers, with its value and its display type (`text` may be shown, `secret` is redacted).
 *
 *   thread -> agent defaults -> prompt defaults -> user account -> the Worker's vars and secrets
 *
 * `ENV_LEVELS` is the one list of that order; resolution, required-variable checks and tests
 * read it.
 * @module
 */
import type { EnvType } from "../protocol.js";
import type { EnvDefault } from "../run/prompt.js";
import { CREDENTIAL_VARS, publicVars } from "./redact.js";

/**
 * Where a secret thread code received came from: `agent`, `prompt:<prompt name>` or `worker` (the
 * levels the thread's owner did not set; see `ThreadSecrets` in thread-secrets.ts). Defined with
 * the store port, which keeps the received list.
 */
export type { ReceivedLevel } from "../ports/store.js";

/** A level of env resolution, in the order they are asked. */
export type EnvLevel = (typeof ENV_LEVELS)[number];

/** Resolution order: the first level holding a name answers. */
export const ENV_LEVELS = ["thread", "agent", "prompt", "user", "worker"] as const;

/** The levels a user sets (their thread's env, their account's): a value from there is theirs, not the deployment's. */
export const USER_LEVELS: ReadonlySet<string> = new Set<EnvLevel>(["thread", "user"]);

/**
 * Which levels a resolution asks: every level, or with `deployment` only those the deployment
 * sets (agent and prompt defaults, the Worker), passing over {@link USER_LEVELS}.
 */
export type EnvFrom = "deployment";

/** A resolved value with its display type and the level that answered. */
export interface EnvEntry {
  value: string;
  type: EnvType;
}

/** What resolution found, and where. */
export interface ResolvedEnv extends EnvEntry {
  level: EnvLevel;
}

/**
 * The user-account level: env values kept for the thread's user across threads.
 * Contract: resolves to the entry or undefined; never throws for a missing user or name.
 */
export interface UserEnvSource {
  get(userId: string, name: string): Promise<EnvEntry | undefined>;
  /** Change notices the account sent (src/secrets/user-env.ts); absent where none are sent. */
  readonly generation?: number;
}

/**
 * The user-account level of a deployment without user accounts: holds nothing. A deployment
 * with accounts passes its own {@link UserEnvSource} to the thread instead.
 */
export const NO_USER_ENV: UserEnvSource = { get: async () => undefined };

/** Where each level reads from, for one thread (and, for `prompt`, the prompt in force). */
export interface EnvSources {
  thread: (name: string) => EnvEntry | undefined;
  agent?: Readonly<Record<string, EnvDefault>> | undefined;
  prompt?: Readonly<Record<string, EnvDefault>> | undefined;
  userId: string | null;
  user: UserEnvSource;
  worker: Readonly<Record<string, unknown>>;
}

/** A default from a definition; a plain string is `secret`. */
export function fromDefault(raw: EnvDefault | undefined): EnvEntry | undefined {
  if (raw === undefined) return undefined;
  return typeof raw === "string" ? { value: raw, type: "secret" } : { value: raw.value, type: raw.type ?? "secret" };
}

const own = <T>(map: Readonly<Record<string, T>> | undefined, name: string): T | undefined =>
  map && Object.hasOwn(map, name) ? map[name] : undefined;

/**
 * Reads one level. Worker vars and secrets cannot be told apart at run time, so both are
 * `secret` unless `WEFT_PUBLIC_VARS` names the var; weft's own credentials are not answered.
 */
async function readLevel(level: EnvLevel, sources: EnvSources, name: string): Promise<EnvEntry | undefined> {
  switch (level) {
    case "thread":
      return sources.thread(name);
    case "agent":
      return fromDefault(own(sources.agent, name));
    case "prompt":
      return fromDefault(own(sources.prompt, name));
    case "user":
      return sources.userId === null ? undefined : sources.user.get(sources.userId, name);
    case "worker": {
      // weft's own credentials are not thread env: no tool may read them.
      if (CREDENTIAL_VARS.has(name)) return undefined;
      const value = own(sources.worker, name);
      return typeof value === "string" ? { value, type: publicVars(sources.worker).has(name) ? "text" : "secret" } : undefined;
    }
  }
}

/**
 * Resolves `name` through {@link ENV_LEVELS}; undefined when no level holds it. With
 * `nonEmpty`, a level holding "" counts as not holding the name and the next level is asked
 * (how provider keys and base URLs resolve: an empty value is no value, docs/env-and-secrets.md "Secrets and redaction").
 * With `from: "deployment"`, the thread and the user's account are not asked ({@link EnvFrom}).
 */
export async function resolveEnv(sources: EnvSources, name: string, options: { nonEmpty?: boolean; from?: EnvFrom } = {}): Promise<ResolvedEnv | undefined> {
  for (const level of ENV_LEVELS) {
    if (options.from === "deployment" && USER_LEVELS.has(level)) continue;
    const entry = await readLevel(level, sources, name);
    if (entry && !(options.nonEmpty && entry.value === "")) return { ...entry, level };
  }
  return undefined;
}
