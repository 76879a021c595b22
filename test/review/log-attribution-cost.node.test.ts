/**
 * review (hostile user, redaction cost across users): one log redactor per set of secrets
 * (log-redactors-shared.node.test.ts) left a user free to give each of their threads a thread env
 * of its own, 1000 secrets each: one set, one log redactor per thread, and past the isolate's
 * automaton budget each searched its forms one at a time. Every line any other user's thread logged
 * passed them all: with 50 such threads, 261 ms a 16 KiB line. A line written in a thread's work
 * (src/secrets/log-context.ts) now passes that thread's log redactor alone; a line outside any
 * thread's work still passes every one.
 */
import { afterAll, expect, it, vi } from "vitest";
import { log } from "../../src/log.js";
import { ISOLATE_AUTOMATON_UNITS, automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { asThreadWork } from "../../src/secrets/log-context.js";
import { redactLogs, tapLogs } from "../../src/secrets/redact-logs.js";
import { REDACTED, Redactor, type Secret } from "../../src/secrets/redact.js";
import { ThreadSecrets } from "../../src/secrets/thread-secrets.js";
import type { UserEnv } from "../../src/secrets/user-env.js";
import { letters } from "../secrets/letters.js";

// The console is patched when src/secrets/redact-logs.ts loads: muted before the imports, so the
// patch writes through this mute method (a spy installed after them would replace the patch).
vi.hoisted(() => vi.spyOn(console, "error").mockImplementation(() => undefined));

const ATTACKER_THREADS = 50;
/** Held for the file's life, as live Durable Objects hold their ThreadSecrets. */
let threads: ThreadSecrets[] = [];
afterAll(() => {
  threads = [];
});

/** A live thread whose own env holds `own`, its owner's account `account`; registered for logs as a thread is. */
function liveThread(own: Secret[], account: Secret[]): ThreadSecrets {
  const userEnv = { version: 1, secrets: () => account } as unknown as UserEnv;
  const store = { env: { version: 1, all: () => own.map((s) => [s.name, { value: s.value, type: "secret" as const }] as [string, { value: string; type: "secret" }]), received: () => [] } };
  const t = new ThreadSecrets(store, {}, userEnv, () => ({ agent: undefined, prompts: {} }), () => true);
  t.redactor();
  redactLogs(t);
  threads.push(t);
  return t;
}

/** Logs `line` once, with the redactor passes (by redactors with secrets) and `indexOf` calls it took, and its time. */
function logged(line: string): { out: string; passes: number; indexOfs: number; ms: number } {
  const seen: unknown[][] = [];
  const untap = tapLogs((_level, args) => seen.push(args));
  const content = Redactor.prototype.content;
  const indexOf = String.prototype.indexOf;
  let passes = 0;
  let indexOfs = 0;
  Redactor.prototype.content = function <T>(this: Redactor, v: T): T {
    if (this.secrets.length > 0) passes++;
    return content.call(this, v) as T;
  };
  String.prototype.indexOf = function (this: string, ...args: [string, number?]) {
    indexOfs++;
    return indexOf.apply(this, args);
  };
  const started = performance.now();
  try {
    log("error", line);
  } finally {
    String.prototype.indexOf = indexOf;
    Redactor.prototype.content = content;
    untap();
  }
  return { out: String(seen.at(-1)?.[0]), passes, indexOfs, ms: performance.now() - started };
}

it("a line a thread logs passes its own log redactor only, however many distinct sets another user's threads hold", () => {
  const victimKey = { name: "VICTIM_KEY", value: `victim-${letters(32, 99)}` };
  const victim = liveThread([victimKey], []);
  const attackerKey = { name: "A0", value: letters(48, 1) };
  for (let t = 0; t < ATTACKER_THREADS; t++) {
    const own = Array.from({ length: 1000 }, (_, i) => ({ name: `A${i}`, value: t === 0 && i === 0 ? attackerKey.value : letters(48, 1e6 * (t + 1) + i) }));
    liveThread(own, []);
  }
  // The attacker's sets hold the isolate's automaton budget: the rest are searched one form at a time.
  expect(automatonUnitsHeld()).toBeGreaterThan(ISOLATE_AUTOMATON_UNITS - 1000 * 52);
  const text = letters(16 * 1024, 7);
  // Written in the victim thread's work: its redactor alone, a handful of searches.
  const inThread = asThreadWork(victim, () => logged(`weft: turn t1 of thread victim failed: ${text} ${victimKey.value} ${attackerKey.value}`));
  expect(inThread.passes).toBe(1);
  expect(inThread.indexOfs).toBeLessThan(50);
  // Its own secret hidden; the other user's is none of its secrets.
  expect(inThread.out.endsWith(` ${REDACTED} ${attackerKey.value}`)).toBe(true);
  // Outside any thread's work (the Worker's own line): every thread's redactor, each once.
  const outside = logged(`weft: unhandled error: ${text} ${victimKey.value} ${attackerKey.value}`);
  expect(outside.passes).toBe(ATTACKER_THREADS + 1);
  expect(outside.out.endsWith(` ${REDACTED} ${REDACTED}`)).toBe(true);
  expect(outside.indexOfs).toBeGreaterThan(1000);
  console.info(`16 KiB line: in the victim's work ${inThread.passes} pass, ${inThread.indexOfs} indexOf, ${inThread.ms.toFixed(1)} ms; outside ${outside.passes} passes, ${outside.indexOfs} indexOf, ${outside.ms.toFixed(1)} ms`);
});
