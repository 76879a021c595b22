/**
 * Redaction of secret values from everything that leaves a thread or the Worker: events, WebSocket
 * frames, stored messages (what the model sees), RPC and HTTP answers, error messages and logs.
 * @module
 */

/** A secret to hide: its env name (shown in the marker) and its value. */
export interface Secret {
  name: string;
  value: string;
}

/**
 * Values shorter than this are not redacted: they would match ordinary text ("1", "true"). Use
 * longer secrets.
 */
export const MIN_SECRET_CHARS = 6;

/**
 * Replaces every occurrence of a secret value with `[redacted:NAME]`, longest value first (so a
 * secret that contains another is hidden whole).
 */
export class Redactor {
  readonly secrets: readonly Secret[];

  constructor(secrets: Iterable<Secret>) {
    const seen = new Map<string, Secret>();
    for (const s of secrets) if (s.value.length >= MIN_SECRET_CHARS && !seen.has(s.value)) seen.set(s.value, s);
    this.secrets = [...seen.values()].sort((a, b) => b.value.length - a.value.length);
  }

  /** The text with every secret replaced. */
  text(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s.value)) out = out.split(s.value).join(`[redacted:${s.name}]`);
    return out;
  }

  /** Serialized JSON with every secret replaced, in its JSON-escaped form too. */
  json(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      const escaped = JSON.stringify(s.value).slice(1, -1);
      if (out.includes(escaped)) out = out.split(escaped).join(`[redacted:${s.name}]`);
    }
    return out;
  }

  /**
   * A JSON-like value with every string (keys too) redacted. Only what holds a secret is copied:
   * a value without any comes back as it is (the same object), so a clean answer costs a walk
   * and no allocation.
   */
  value<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object" || depth > 64) return value;
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const v = this.walk(value[i], depth + 1);
        if (out === null && v !== value[i]) out = value.slice(0, i);
        out?.push(v);
      }
      return out ?? value;
    }
    if (value instanceof Error) {
      const message = this.text(value.message);
      const stack = value.stack === undefined ? undefined : this.text(value.stack);
      // Only a bare error is kept as is: whatever else it carries (details, a cause) is dropped
      // by the copy, as it always was, so no secret rides along unread.
      if (message === value.message && stack === value.stack && value.cause === undefined && Object.keys(value).length === 0) return value;
      const copy = new Error(message);
      copy.name = value.name;
      if (stack) copy.stack = stack;
      return copy;
    }
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
    const entries = Object.entries(value);
    let changed = false;
    for (const entry of entries) {
      const k = this.text(entry[0]);
      const v = this.walk(entry[1], depth + 1);
      if (k !== entry[0] || v !== entry[1]) {
        changed = true;
        entry[0] = k;
        entry[1] = v;
      }
    }
    return changed ? Object.fromEntries(entries) : value;
  }

  /** A redactor for one stream of text pieces; see {@link StreamRedactor}. */
  stream(): StreamRedactor {
    return new StreamRedactor(this);
  }
}

/**
 * Redacts a text that arrives in pieces (stream deltas): a secret split across pieces is still
 * hidden. It holds back only a tail that a later piece could complete into a secret, until the
 * next piece or `end()`; what it releases equals redacting the whole text at once.
 */
export class StreamRedactor {
  private pending = "";

  constructor(private readonly redactor: Redactor) {}

  /** Adds a piece; returns the text that is now safe to send (maybe ""). */
  push(piece: string): string {
    this.pending += piece;
    // Hold back the longest tail that is the start of some secret: the next piece may complete
    // it. A secret starting before `cut` is complete already; if it straddles `cut`, hold it whole.
    let hold = 0;
    for (const { value } of this.redactor.secrets) {
      for (let k = Math.min(value.length - 1, this.pending.length); k > hold; k--) {
        if (this.pending.endsWith(value.slice(0, k))) {
          hold = k;
          break;
        }
      }
    }
    let cut = Math.max(0, this.pending.length - hold);
    for (let moved = true; moved; ) {
      moved = false;
      for (const s of this.redactor.secrets) {
        const at = this.pending.indexOf(s.value, Math.max(0, cut - s.value.length + 1));
        if (at !== -1 && at < cut) {
          cut = at;
          moved = true;
        }
      }
    }
    return this.take(cut);
  }

  /** The rest, redacted; call once when the stream ends. */
  end(): string {
    return this.take(this.pending.length);
  }

  private take(n: number): string {
    // Redact the whole buffer first so a complete secret straddling `n` is replaced, not cut.
    const head = this.pending.slice(0, n);
    this.pending = this.pending.slice(n);
    return this.redactor.text(head);
  }
}

/** A secret value in the given env map, as a list for {@link Redactor}. */
export function secretsOf(entries: Iterable<[string, { value: string; type: string }]>): Secret[] {
  const out: Secret[] = [];
  for (const [name, v] of entries) if (v.type === "secret") out.push({ name, value: v.value });
  return out;
}

/** weft's own config vars that hold secrets; every other `WEFT_*` var is plain config. */
const SECRET_CONFIG = new Set(["WEFT_JWT_SECRET", "WEFT_API_KEYS"]);

/**
 * The Worker's secrets: every string binding except weft's plain config vars (`WEFT_*`) and the
 * names listed in `WEFT_PUBLIC_VARS` (comma-separated). Wrangler gives vars and secrets alike as
 * strings, so a var is treated as a secret unless declared public.
 */
export function workerSecrets(env: Readonly<Record<string, unknown>>): Secret[] {
  const open = publicVars(env);
  const out: Secret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== "string" || open.has(name)) continue;
    if (name.startsWith("WEFT_") && !SECRET_CONFIG.has(name)) continue;
    out.push({ name, value });
  }
  return out;
}

/** Names in `WEFT_PUBLIC_VARS`: Worker vars that tools may show (their `envType` is `text`). */
export function publicVars(env: Readonly<Record<string, unknown>>): Set<string> {
  return new Set(String(env.WEFT_PUBLIC_VARS ?? "").split(",").map((s) => s.trim()).filter(Boolean));
}

/** Something that knows a redactor without I/O (a thread's secrets); held weakly. */
export interface RedactorSource {
  last(): Redactor;
}

// Weak, so an evicted Durable Object is not kept alive by the console patch.
const logSources = new Set<WeakRef<RedactorSource>>();
const logTaps = new Set<(level: string, args: unknown[]) => void>();
let consolePatched = false;

/**
 * Observes console output after redaction (what reaches the logs); returns an unsubscribe. For
 * harnesses that check no secret is logged.
 */
export function tapLogs(listener: (level: string, args: unknown[]) => void): () => void {
  logTaps.add(listener);
  return () => logTaps.delete(listener);
}

/**
 * Routes `console.*` output of this isolate through every registered redactor, so a tool that logs
 * a secret writes the marker instead. Registering twice is harmless; the patch is installed once.
 */
export function redactLogs(source: RedactorSource): void {
  logSources.add(new WeakRef(source));
  if (!consolePatched) {
    consolePatched = true;
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      const original = console[level].bind(console);
      console[level] = (...args: unknown[]) => {
        let out = args;
        for (const ref of logSources) {
          const source = ref.deref();
          if (!source) {
            logSources.delete(ref);
            continue;
          }
          let r: Redactor;
          try {
            r = source.last();
          } catch {
            // A source whose object is gone (a restart) or out of reach from this context.
            continue;
          }
          out = out.map((a) => r.value(a));
        }
        for (const tap of logTaps) tap(level, out);
        original(...out);
      };
    }
  }
}
