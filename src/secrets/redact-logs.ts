/**
 * Console output of this isolate through the redactors of the threads that live in it: a tool that
 * logs a secret writes the marker instead (docs/env-and-secrets.md "Secrets and redaction"). A line written in a
 * thread's work (src/secrets/log-context.ts) passes that thread's log redactor alone, one in the work
 * of an account or the file schedules object that object's own (log-owners.ts); any other line
 * passes every thread's.
 * @module
 */
import type { Redactor } from "./redact.js";
import { type RedactorSource, logOwner } from "./log-context.js";

// Weak, so an evicted Durable Object is not kept alive by the console patch.
const logSources = new Set<WeakRef<RedactorSource>>();
const logTaps = new Set<(level: string, args: unknown[]) => void>();
/** True while {@link writeRedacted} writes a line it redacted already: the patch passes it on as it is. */
let redactedAlready = false;

/**
 * Observes console output after redaction (what reaches the logs); returns an unsubscribe. For
 * harnesses that check no secret is logged.
 */
export function tapLogs(listener: (level: string, args: unknown[]) => void): () => void {
  logTaps.add(listener);
  return () => logTaps.delete(listener);
}

/**
 * The console methods that write what they are given: the five levels, and those a tool may write a
 * secret with as well (workerd prints `console.trace` as it prints `console.log`).
 */
const CONSOLE_METHODS = ["log", "info", "warn", "error", "debug", "trace", "dir", "dirxml", "table", "assert", "group", "groupCollapsed", "timeLog"] as const;

/**
 * Registers a thread's log redactor with the console patch: from now on `console.*` output of this
 * isolate passes it, a line written in that thread's work through its redactor alone, any other
 * through every registered one (see `redactedForLogs`). Registering twice is harmless.
 */
export function redactLogs(source: RedactorSource): void {
  logSources.add(new WeakRef(source));
}

// Patched when this module loads: the generated registry imports it before any agent module
// (scripts/registry/render.mjs), so a tool or library that keeps `console.log` at import time keeps
// the patched method. Until a source is registered there is nothing to redact: lines pass unchanged.
for (const level of CONSOLE_METHODS) {
  if (typeof console[level] !== "function") continue;
  const original = (console[level] as (...args: unknown[]) => void).bind(console);
  console[level] = (...args: unknown[]) => {
    const out = redactedAlready ? args : redactedForLogs(args);
    for (const tap of logTaps) tap(level, out);
    original(...out);
  };
}

/**
 * Writes weft's own line (src/log.ts) at `level`: redacted once, then each argument made printable
 * by `finish`. Redaction comes first: a secret whose characters `finish` rewrites (a line feed, a
 * carriage return) would match neither its raw form nor its JSON-escaped one.
 */
export function writeRedacted(level: "log" | "info" | "warn" | "error", args: unknown[], finish: (arg: unknown) => unknown): void {
  const out = redactedForLogs(args).map(finish);
  redactedAlready = true;
  try {
    console[level](...out);
  } finally {
    redactedAlready = false;
  }
}

/** Live log redactors by their secrets' fingerprint: the one each set's pass is made with (see {@link sharedLogRedactor}). */
const bySecrets = new Map<string, WeakRef<Redactor>>();
const forgotten = new FinalizationRegistry<string>((fingerprint) => {
  if (bySecrets.get(fingerprint)?.deref() === undefined) bySecrets.delete(fingerprint);
});

/**
 * The isolate's log redactor of exactly `r`'s secrets: `r` itself, or one made before for the same
 * secrets and still in use. One user's threads build their log redactors of the same secrets (the
 * account env, the Worker's), and every line written outside any thread's work passes each
 * registered redactor once (see {@link redactLogs}): shared, such a line costs one pass per set of
 * secrets, not one per thread. Call it in the thread's own request
 * (it reads the secrets' fingerprint, and compares them where one matches).
 */
export function sharedLogRedactor(r: Redactor): Redactor {
  if (r.secrets.length === 0) return r;
  const fingerprint = r.fingerprint;
  const held = bySecrets.get(fingerprint)?.deref();
  if (held === r) return r;
  // A hash is no proof (a set could be made to collide): the values are compared.
  if (held?.holdsExactly(new Set(r.secrets.map((s) => s.value)))) return held;
  bySecrets.set(fingerprint, new WeakRef(r));
  forgotten.register(r, fingerprint);
  return r;
}

/**
 * `args` through the log redactor of the object whose work writes them ({@link logOwner}; it holds
 * every secret that object's code can read: a thread's owner's at every level, the Worker's), else,
 * or while it has none (or making it threw), through every registered redactor (see {@link redactLogs}), each once.
 */
function redactedForLogs(args: unknown[]): unknown[] {
  const own = ownRedactor();
  if (own) return args.map((a) => own.content(a));
  let out = args;
  const passed = new Set<Redactor>();
  for (const ref of logSources) {
    const source = ref.deref();
    if (!source) {
      logSources.delete(ref);
      continue;
    }
    let r: Redactor | null;
    try {
      r = source.last();
    } catch {
      // A source whose object is gone (a restart) or out of reach from this context.
      continue;
    }
    if (!r) continue;
    // Threads of one set of secrets share their redactor (sharedLogRedactor): one pass does for all.
    if (passed.has(r)) continue;
    passed.add(r);
    out = out.map((a) => r.content(a));
  }
  return out;
}

/** The log redactor of the object whose work runs now, if it has one. */
function ownRedactor(): Redactor | null {
  const owner = logOwner();
  if (!owner) return null;
  try {
    return owner.last();
  } catch {
    return null;
  }
}
