/**
 * Console output of this isolate through the redactors of the threads that live in it: a tool that
 * logs a secret writes the marker instead (README "Secrets and redaction").
 * @module
 */
import type { Redactor } from "./redact.js";

/** Something that knows a redactor without I/O (a thread's secrets); held weakly. */
export interface RedactorSource {
  last(): Redactor;
}

// Weak, so an evicted Durable Object is not kept alive by the console patch.
const logSources = new Set<WeakRef<RedactorSource>>();
const logTaps = new Set<(level: string, args: unknown[]) => void>();
let consolePatched = false;
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
        const out = redactedAlready ? args : redactedForLogs(args);
        for (const tap of logTaps) tap(level, out);
        original(...out);
      };
    }
  }
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

/** `args` through every registered redactor (see {@link redactLogs}). */
function redactedForLogs(args: unknown[]): unknown[] {
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
  return out;
}
