/**
 * review (hostile user, redaction cost across users): every console line of an isolate passes the
 * log redactor of every thread living in it (src/secrets/redact-logs.ts). One user's threads hold
 * the same secrets (their account env, the Worker's), yet each thread built a redactor of its own,
 * and a line went through each of them in turn. With the largest account env (1000 secrets of 8000
 * characters: an automaton over the shortest 65, the other 935 looked for one at a time), each of
 * the attacker's live threads added a pass to every line any other user's thread logs (its failed
 * turn, its code's console output): 60 threads, 60 passes (24 ms for a 16 KiB line here); the
 * 1000 threads a user may have, about a third of a second a line. Redactors of the same secrets are
 * one redactor, one pass a line.
 */
import { afterAll, expect, it, vi } from "vitest";
import { log } from "../../src/log.js";
import { redactLogs, tapLogs } from "../../src/secrets/redact-logs.js";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";
import { ThreadSecrets } from "../../src/secrets/thread-secrets.js";
import type { UserEnv } from "../../src/secrets/user-env.js";
import { letters } from "../secrets/letters.js";

// The console is patched when src/secrets/redact-logs.ts loads: muted before the imports, so the
// patch writes through this mute method (a spy installed after them would replace the patch).
vi.hoisted(() => vi.spyOn(console, "error").mockImplementation(() => undefined));

const THREADS = 60;
const accountSecrets = Array.from({ length: 1000 }, (_, i) => ({ name: `K${i}`, value: letters(8000, i + 1) }));
/** Held for the file's life, as a live Durable Object holds its ThreadSecrets. */
const threads: ThreadSecrets[] = [];

afterAll(() => {
  threads.length = 0;
});

it("a line another user's thread logs goes through the attacker's many threads' redactors of one account env once", () => {
  // What reaches the console is read through the tap; the patch writes through the mute method.
  const userEnv = { version: 1, secrets: () => accountSecrets } as unknown as UserEnv;
  for (let i = 0; i < THREADS; i++) {
    const store = { env: { version: 1, all: () => [], received: () => [] } };
    const t = new ThreadSecrets(store, {}, userEnv, () => ({ agent: undefined, prompts: {} }), () => true);
    t.redactor();
    redactLogs(t);
    threads.push(t);
  }
  const seen: unknown[][] = [];
  const untap = tapLogs((_level, args) => seen.push(args));
  const content = Redactor.prototype.content;
  let passes = 0;
  Redactor.prototype.content = function <T>(this: Redactor, v: T): T {
    if (this.secrets.length > 0) passes++;
    return content.call(this, v) as T;
  };
  const line = `weft: turn t1 of thread victim failed: ${letters(16 * 1024, 7)} ${accountSecrets[3]!.value}`;
  const started = performance.now();
  try {
    log("error", line);
  } finally {
    Redactor.prototype.content = content;
    untap();
  }
  const ms = performance.now() - started;
  // Still cleaned of the attacker's secrets (logs hold no secret of any level).
  expect(String(seen.at(-1)?.[0])).toContain(REDACTED);
  expect(String(seen.at(-1)?.[0])).not.toContain(accountSecrets[3]!.value);
  // One pass for the one set of secrets, not one per thread holding it.
  expect(passes).toBe(1);
  expect(ms).toBeLessThan(100);
});
