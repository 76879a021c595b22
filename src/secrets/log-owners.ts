/**
 * Log redactors made of levels of secrets: a thread's (thread-secrets.ts), and those of the Durable
 * Objects that are not threads (the UserAccount, FileSchedules), whose entries are their own log
 * owners (log-context.ts): a line written in their work passes a redactor of exactly the secrets
 * their code can read, not every live thread's, so another user's many threads of distinct secrets
 * cost it nothing (docs/env-and-secrets.md "Secrets and redaction").
 * @module
 */
import type { Registry } from "../run/agent.js";
import type { EnvDefault } from "../run/prompt.js";
import { fromDefault } from "./env.js";
import type { RedactorSource } from "./log-context.js";
import { MIN_SECRET_CHARS, Redactor, type Secret, workerSecrets } from "./redact.js";
import { sharedLogRedactor } from "./redact-logs.js";

/**
 * `kept` when it holds exactly the secrets a redactor of `secrets` would (an env change of no secret:
 * a text value, an account notice), else a new one: a redactor of many secrets makes its search anew.
 */
export function redactorOf(kept: Redactor | null, secrets: readonly Secret[]): Redactor {
  const values = new Set(secrets.flatMap((s) => (s.value.length >= MIN_SECRET_CHARS ? [s.value] : [])));
  return kept?.holdsExactly(values) ? kept : new Redactor(secrets);
}

/**
 * The log redactor of `levels` and every Worker secret of `workerEnv`, weft's credentials included
 * (logs are cleaned of them all): `kept` when it holds exactly those, else the isolate's one of the
 * same secrets ({@link sharedLogRedactor}) or a new one. Call it in its owner's own request: its
 * searches are made now, where made at their first use the next line any object of the isolate
 * logs would pay for them.
 */
export function logRedactorOf(kept: Redactor | null, levels: readonly Secret[], workerEnv: Readonly<Record<string, unknown>>): Redactor {
  const r = sharedLogRedactor(redactorOf(kept, [...levels, ...workerSecrets(workerEnv)]));
  r.prepare();
  return r;
}

/** The `secret` values of env defaults (an agent's, prompts'), as secrets to redact. */
export function secretDefaults(levels: Iterable<Readonly<Record<string, EnvDefault>> | undefined>): Secret[] {
  const out: Secret[] = [];
  for (const level of levels) {
    for (const [name, v] of Object.entries(level ?? {})) {
      const entry = fromDefault(v)!;
      if (entry.type === "secret") out.push({ name, value: entry.value });
    }
  }
  return out;
}

/** Every secret env default a registry holds: each agent's and each prompt's. */
export const registryDefaults = (registry: Registry): Secret[] =>
  secretDefaults([...Object.values(registry.agents).map((a) => a.env), ...Object.values(registry.prompts ?? {}).map((p) => p.env)]);

/** What a {@link LogOwner} is made of besides the Worker's secrets. */
export interface OwnedLevels {
  /** Changes whenever {@link secrets} would answer other secrets (a write of them); cheap, asked at each line. */
  version(): number;
  /** Every secret its object's code can read but the Worker's. */
  secrets(): readonly Secret[];
}

/**
 * The log owner of a Durable Object that is not a thread: its redactor holds the Worker's secrets
 * and its `levels`, built at the first line its work writes after they changed, in that work (so
 * `levels` may read the object's own storage). It is not registered with `redactLogs`: it is asked
 * only for lines of its own object's work (log-context.ts); if building throws, the line passes
 * every thread's log redactor instead.
 */
export class LogOwner implements RedactorSource {
  private kept: Redactor | null = null;
  private builtAt = 0;

  constructor(
    private readonly workerEnv: Readonly<Record<string, unknown>>,
    private readonly levels: OwnedLevels,
  ) {}

  /** The redactor of the Worker's secrets and the levels as they are now. */
  last(): Redactor {
    const version = this.levels.version();
    if (this.kept === null || version !== this.builtAt) {
      this.kept = logRedactorOf(this.kept, this.levels.secrets(), this.workerEnv);
      this.builtAt = version;
    }
    return this.kept;
  }
}
