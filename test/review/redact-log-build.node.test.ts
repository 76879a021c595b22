/**
 * review (one-pass redaction): console output of the isolate passes every thread's log redactor
 * (src/secrets/redact-logs.ts), and a redactor of many secrets searches through an automaton made
 * at its first search. A thread rebuilds its log redactor when its owner's env changes, so the
 * automaton (about 0.2 s for 512 Ki units of secrets) was made by whichever request logged a line
 * next: another user's thread in the isolate, once per thread of the owner there and per change.
 * It is made in the thread's own request, where its redactors are rebuilt.
 */
import { expect, it } from "vitest";
import type { EnvType } from "../../src/protocol.js";
import { ThreadSecrets } from "../../src/secrets/thread-secrets.js";
import type { UserEnv } from "../../src/secrets/user-env.js";

it("a thread's log redactor is searchable without more work once the thread rebuilt its redactors", () => {
  const rows: Array<[string, { value: string; type: EnvType }]> = Array.from({ length: 1000 }, (_, i) => [`K${i}`, { value: `secret-${i}-${"x".repeat(500)}`, type: "secret" }]);
  const store = { env: { version: 1, all: () => rows, received: () => [] } };
  const userEnv = { version: 1, secrets: () => [] } as unknown as UserEnv;
  const secrets = new ThreadSecrets(store, {}, userEnv, () => ({ agent: undefined, prompts: {} }), () => true);
  // The thread's own request: its redactors rebuilt, what it answers redacted.
  expect(secrets.redactor().plain("secret-1-")).toBe("secret-1-");
  // Another thread's log line, through this thread's log redactor: units of text read, counted.
  const charCodeAt = String.prototype.charCodeAt;
  let reads = 0;
  String.prototype.charCodeAt = function (this: string, at: number) {
    reads++;
    return charCodeAt.call(this, at);
  };
  let line: string;
  try {
    line = secrets.last()!.plain(`a log line secret-7-${"x".repeat(500)}`);
  } finally {
    String.prototype.charCodeAt = charCodeAt;
  }
  expect(line).toBe("a log line [redacted]");
  // The line's own units, not the 500 000 of the secrets.
  expect(reads).toBeLessThan(10_000);
});

it("an env change that changes no secret (a text value, an MCP server of the account) makes no search again", () => {
  const rows: Array<[string, { value: string; type: EnvType }]> = Array.from({ length: 1000 }, (_, i) => [`K${i}`, { value: `secret-${i}-${"x".repeat(500)}`, type: "secret" }]);
  const store = { env: { version: 1, all: () => rows, received: () => [] } };
  const userEnv = { version: 1, secrets: () => [] } as unknown as UserEnv;
  const secrets = new ThreadSecrets(store, {}, userEnv, () => ({ agent: undefined, prompts: {} }), () => true);
  expect(secrets.redactor().plain("secret-1-")).toBe("secret-1-");
  // A text value set, and a notice of the account read again: both versions move, no secret changed.
  rows.push(["PLAIN", { value: "not a secret at all", type: "text" }]);
  store.env.version++;
  (userEnv as { version: number }).version++;
  const charCodeAt = String.prototype.charCodeAt;
  let reads = 0;
  String.prototype.charCodeAt = function (this: string, at: number) {
    reads++;
    return charCodeAt.call(this, at);
  };
  let out: string[];
  try {
    out = [secrets.redactor().plain(`a line secret-7-${"x".repeat(500)}`), secrets.last()!.plain(`a log line secret-8-${"x".repeat(500)}`)];
  } finally {
    String.prototype.charCodeAt = charCodeAt;
  }
  expect(out).toEqual(["a line [redacted]", "a log line [redacted]"]);
  expect(reads).toBeLessThan(10_000);
});
