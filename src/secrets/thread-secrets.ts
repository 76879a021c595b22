/**
 * Which secrets everything leaving a thread is cleaned of, and the redactors that do it: the
 * thread's own values, its owner's account, and the secrets of other levels (agent and prompt
 * defaults, the Worker's vars and secrets) that thread code received.
 * @module
 */
import type { EnvType, EventPayloads } from "../protocol.js";
import type { EnvDefault } from "../run/prompt.js";
import { JsonArgumentStream } from "../run/partial-json.js";
import { type ReceivedLevel, fromDefault } from "./env.js";
import { type Redactor, type Secret, secretsOf, workerSecrets } from "./redact.js";
import { JsonEscapes } from "./json-escapes.js";
import { logRedactorOf, redactorOf, secretDefaults } from "./log-owners.js";
import { StreamRedactor } from "./redact-stream.js";
import type { UserEnv } from "./user-env.js";

/** What the secrets read of a thread's own env rows (the thread's `EnvStore`). */
export interface ThreadEnvRows {
  /** Bumped by every write, so an unchanged version means nothing to rebuild. */
  readonly version: number;
  /** Every row of the thread's own env. */
  all(): Array<[string, { value: string; type: EnvType }]>;
  /** Every secret of another level thread code received. */
  received(): Array<{ name: string; level: ReceivedLevel }>;
}

/** Env defaults a thread's definitions give: its agent's, and each prompt's by name. */
export interface ThreadDefaults {
  agent: Readonly<Record<string, EnvDefault>> | undefined;
  prompts: Readonly<Record<string, { env?: Readonly<Record<string, EnvDefault>> | undefined }>>;
}

/**
 * The redactors of a thread, rebuilt only when a level changed or thread code received a secret.
 *
 * Which secrets a thread's output is cleaned of (docs/env-and-secrets.md "Secrets and redaction": nothing a user sees may
 * depend on whether text matches a secret the user could not already read): the secret values of
 * the thread's own env and of its owner's account (the owner set them), and a secret of any other
 * level (agent defaults, prompt defaults, the Worker's vars and secrets) only once thread code
 * received it through `state.env` (recorded durably, `EnvStore.receive`). A secret thread code
 * never received cannot be in anything the thread made, so it is not looked for: a user's guess of
 * it comes back as written. Logs are cleaned of every secret (see {@link last}).
 */
export class ThreadSecrets {
  private cached: Redactor | null = null;
  /** Every secret of every level plus weft's own credentials, for console output (see {@link last}). */
  private cachedLogs: Redactor | null = null;
  /** What the cached redactor was built for: the two env versions and whether the thread existed. */
  private keyUser = -1;
  private keyOwn = -1;
  private keyReady = false;

  constructor(
    private readonly store: { readonly env: ThreadEnvRows },
    private readonly workerEnv: Record<string, unknown>,
    private readonly userEnv: UserEnv,
    /** Env defaults of the agent and the prompts it may run; null before the thread exists. */
    private readonly defaults: () => ThreadDefaults | null,
    /** Whether the thread exists (`defaults` would not answer null); cheap, asked on every use. */
    private readonly ready: () => boolean,
  ) {}

  /**
   * Per streamed text (`turnId:step:callId`): its stream redactor, and for a call's arguments the
   * rewriting of their escapes before it and the released text parsed for `preview` after it.
   */
  private readonly streams = new Map<string, { redactor: StreamRedactor; escapes?: JsonEscapes; released?: JsonArgumentStream }>();

  /**
   * An event payload with every secret replaced. Stream deltas (`text_delta`, `tool_call_delta`)
   * go through one {@link StreamRedactor} per streamed text, so a secret split across deltas is
   * still hidden, and where a delta ends depends on the text alone (see redact-stream.ts); null
   * when a delta has nothing to release yet. A call's `preview` is the released argument text
   * parsed. `model_step` (which carries the whole text) or `turn_finished` ends the step's streams.
   */
  event<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): EventPayloads[K] | null {
    const r = this.redactor();
    if (type === "text_delta" || type === "tool_call_delta") {
      const d = data as { turnId: string; step: number; delta: string; callId?: string };
      const key = `${d.turnId}:${d.step}:${d.callId ?? ""}`;
      let stream = this.streams.get(key);
      if (!stream) {
        // Arguments are JSON, which a client parses: a secret written with escapes is found once they are rewritten.
        stream = type === "tool_call_delta" ? { redactor: new StreamRedactor(r), escapes: new JsonEscapes(), released: new JsonArgumentStream() } : { redactor: new StreamRedactor(r) };
        this.streams.set(key, stream);
      }
      const delta = stream.redactor.push(stream.escapes ? stream.escapes.push(d.delta) : d.delta);
      if (delta === "") return null;
      // The delta is redacted already: redacting it again as a whole could disagree with the stream.
      const clean = { ...r.value({ ...data, delta: "" }), delta };
      if (!stream.released) return clean;
      // A call's preview is parsed from what was released, never from text still held back (it
      // would show the start of a secret before the stream knows it is one).
      stream.released.push(delta);
      const preview = stream.released.preview();
      const { preview: _raw, ...rest } = clean as EventPayloads["tool_call_delta"];
      return (preview === undefined ? rest : { ...rest, preview: r.value(preview) }) as EventPayloads[K];
    }
    // A step's streams end with its model_step (which carries the whole text), when a cut attempt
    // is discarded (its held-back text must not open the next attempt's), or with its turn.
    if (type === "model_step" || type === "model_step_discarded" || type === "turn_finished") {
      const d = data as { turnId: string; step?: number };
      const prefix = type === "model_step" ? `${d.turnId}:${d.step}:` : `${d.turnId}:`;
      for (const key of this.streams.keys()) if (key.startsWith(prefix)) this.streams.delete(key);
    }
    const field = HANDED[type];
    if (field === undefined || r.secrets.length === 0 || !Object.hasOwn(data, field)) return r.value(data);
    // The field in its place, cleaned as what tool code hands weft (numbers too); the rest as weft's own.
    const clean = r.value({ ...data, [field]: null }) as Record<string, unknown>;
    clean[field] = r.content((data as Record<string, unknown>)[field]);
    return clean as EventPayloads[K];
  }

  /**
   * The log redactor last built, without touching storage: console output may be written while
   * another object's request runs, where this thread's storage must not be read. The thread
   * rebuilds it whenever a level changes (see `redactor()` callers in src/thread/core.ts). Logs are not
   * shown to users, so they are cleaned of every secret of every level, received or not, and of
   * weft's own credentials. Null before the first is built.
   */
  last(): Redactor | null {
    return this.cachedLogs;
  }

  /**
   * The redactor of everything leaving the thread: its own and its owner's account secrets, and
   * the secrets of other levels its code received (see the class doc), and no others, so it is no
   * oracle for a secret thread code never received.
   */
  redactor(): Redactor {
    // The thread's own rows and the received set change only through EnvStore, which bumps its
    // version: no query (and no allocation) on the hot path when nothing changed.
    const userVersion = this.userEnv.version;
    const ownVersion = this.store.env.version;
    if (this.cached && userVersion === this.keyUser && ownVersion === this.keyOwn && this.ready() === this.keyReady) return this.cached;
    // Before the thread exists there is no env table (nor agent) yet.
    const defaults = this.defaults();
    const owners = [...(defaults ? secretsOf(this.store.env.all()) : []), ...this.userEnv.secrets()];
    const worker = workerSecrets(this.workerEnv, { credentials: false });
    const received: Secret[] = [];
    for (const { name, level } of defaults ? this.store.env.received() : []) {
      // The value of that level now (a secret the deployment changed since is the one to hide).
      const value =
        level === "worker"
          ? worker.find((s) => s.name === name)?.value
          : secretDefault(own(level === "agent" ? defaults!.agent : defaults!.prompts[level.slice("prompt:".length)]?.env, name));
      if (value !== undefined) received.push({ name, value });
    }
    this.cached = redactorOf(this.cached, [...owners, ...received]);
    const everyDefault = defaults ? secretDefaults([defaults.agent, ...Object.values(defaults.prompts).map((p) => p.env)]) : [];
    // Made now, in this thread's request, with its searches (see logRedactorOf).
    this.cachedLogs = logRedactorOf(this.cachedLogs, [...owners, ...everyDefault], this.workerEnv);
    this.keyUser = userVersion;
    this.keyOwn = ownVersion;
    this.keyReady = defaults !== null;
    return this.cached;
  }
}

/**
 * The field of a built-in event that holds what a model or tool code handed weft (a queued call's
 * arguments, code's `reportProgress` data), stored as given: redacted by `Redactor.content`, its
 * numbers searched too, where the rest of the event is weft's own (`Redactor.value`).
 */
const HANDED: Partial<Record<keyof EventPayloads, string>> = { tool_call_started: "input", tool_call_approval_requested: "input", tool_call_parked: "input", code_progress: "data" };

/** A definition's default when it is a secret. */
function secretDefault(raw: EnvDefault | undefined): string | undefined {
  const entry = fromDefault(raw);
  return entry?.type === "secret" ? entry.value : undefined;
}

const own = <T>(map: Readonly<Record<string, T>> | undefined, name: string): T | undefined =>
  map && Object.hasOwn(map, name) ? map[name] : undefined;
