/**
 * Which thread's work writes a console line: entered at each entry of a thread's Durable Object
 * (its RPC methods, `fetch`, `alarm`, its socket handlers, its restore), and carried by
 * `AsyncLocalStorage` into the promises and timers that work starts. A line written there is the
 * thread's, redacted by its log redactor alone (src/secrets/redact-logs.ts), so another user's many
 * redactors cost it nothing (docs/env-and-secrets.md "Secrets and redaction"). The UserAccount and
 * FileSchedules objects own their lines the same way, each with its own redactor (log-owners.ts).
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Redactor } from "./redact.js";

/** Something that knows a log redactor without I/O (a thread's secrets, src/secrets/thread-secrets.ts). */
export interface RedactorSource {
  /** Its log redactor; null while it has none yet. */
  last(): Redactor | null;
}

const working = new AsyncLocalStorage<RedactorSource>();

/**
 * Runs `fn` as work of the thread whose log redactor `source` knows: console lines written in it,
 * and in the promises, timers and `ctx.waitUntil` work it starts, are that thread's (see
 * {@link logOwner}). For work no entry starts (the restore in the constructor); {@link attributeEntries}
 * enters the same context at each entry.
 */
export function asThreadWork<T>(source: RedactorSource, fn: () => T): T {
  return working.run(source, fn);
}

/** The thread whose work is running ({@link asThreadWork}); undefined outside any thread's work. */
export function logOwner(): RedactorSource | undefined {
  return working.getStore();
}

/** The entries the runtime calls on a Durable Object besides its RPC methods. */
const HANDLERS = ["fetch", "alarm", "webSocketMessage", "webSocketClose", "webSocketError"];

/**
 * Makes each entry of a Durable Object class (a thread's, the UserAccount, FileSchedules) run as
 * that object's work ({@link asThreadWork}): every method of `proto` itself (the RPC surface) and the runtime's
 * handlers it has (`fetch`, `alarm`, `webSocketMessage`, `webSocketClose`, `webSocketError`),
 * wrapped in place once, when the class is made. `sourceOf` answers an instance's log redactor.
 */
export function attributeEntries<T extends object>(proto: T, sourceOf: (self: T) => RedactorSource): void {
  const own = Object.getOwnPropertyNames(proto).filter((name) => name !== "constructor" && typeof Object.getOwnPropertyDescriptor(proto, name)?.value === "function");
  const handlers = HANDLERS.filter((name) => typeof (proto as Record<string, unknown>)[name] === "function");
  for (const name of new Set([...own, ...handlers])) {
    const method = (proto as Record<string, (...args: unknown[]) => unknown>)[name]!;
    const entry = function (this: T, ...args: unknown[]): unknown {
      const source = sourceOf(this);
      // A method the thread's own work calls (callToolJson calls callTool) is in its work already.
      return working.getStore() === source ? method.apply(this, args) : working.run(source, Reflect.apply, method, this, args);
    };
    Object.defineProperty(entry, "name", { value: name });
    Object.defineProperty(proto, name, { value: entry, writable: true, configurable: true, enumerable: false });
  }
}
