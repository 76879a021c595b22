/**
 * Hostile review (redaction cost across users): a console line written outside any thread's work
 * passed every live thread's log redactor, each set of secrets once. A user who made many threads,
 * each with a thread env of its own (`POST /threads {env}`), made every set distinct: with 300
 * threads of 1000 secrets, about 1.2 s of CPU a line, paid by whichever object wrote it, a line of
 * another user's account or of the deployment's file schedules among them. The UserAccount and the
 * FileSchedules Durable Objects are now the owners of their own lines (src/secrets/account-logs.ts,
 * src/schedules/deployment.ts): a line of theirs passes one redactor, of what their code can read.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, expect, it } from "vitest";
import type { AccountApi } from "../../src/account/api.js";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";
import { json, rawStub } from "../helpers.js";

const vars = env as unknown as { ACCOUNT: DurableObjectNamespace; SCHEDULES: DurableObjectNamespace; CANARY_WORKER: string };
/** The canary agent's secret default (test/fixtures/agents/canary.ts): in the registry the file schedules read. */
const AGENT_DEFAULT = "canary-agent-3f9a0c4411";
/** bob's threads, each with a thread env secret of its own: a distinct set of secrets, a log redactor each. */
const BOB_THREADS = 6;

const made: string[] = [];
const bobSecrets: string[] = [];
afterAll(async () => {
  for (const id of made) await evictDurableObject(rawStub(id));
});

/** bob's threads, made once for the file. */
async function bobsThreads(): Promise<void> {
  if (made.length > 0) return;
  for (let t = 0; t < BOB_THREADS; t++) {
    const secret = `bob-thread-secret-${t}-${crypto.randomUUID()}`;
    const created = await json("POST", "/threads", { env: { BOB_KEY: { value: secret, type: "secret" } } }, "bob");
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    made.push(created.body.threadId);
    bobSecrets.push(secret);
  }
}

/** Runs `fn`, with the lines holding `mark` it logged and the passes of log redactors (they hold weft's credentials) over them. */
async function linesOf(mark: string, fn: () => Promise<unknown>): Promise<{ lines: string[]; passes: number }> {
  const content = Redactor.prototype.content;
  let passes = 0;
  const holdsMark = (v: unknown) => (v instanceof Error ? v.message : String(v)).includes(mark);
  Redactor.prototype.content = function <V>(this: Redactor, v: V): V {
    if (holdsMark(v) && this.secrets.some((s) => s.name === "WEFT_JWT_SECRET")) passes++;
    return content.call(this, v) as V;
  };
  const lines: string[] = [];
  const untap = tapLogs((_level, args) => {
    const line = args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ");
    if (line.includes(mark)) lines.push(line);
  });
  try {
    await fn();
    return { lines, passes };
  } finally {
    untap();
    Redactor.prototype.content = content;
  }
}

/** Runs `fn` inside the Durable Object `stub` with the instance untyped (its private fields are what is replaced). */
function inObject<T>(stub: DurableObjectStub, fn: (instance: any) => T): Promise<T> {
  return (runInDurableObject as unknown as (s: DurableObjectStub, cb: (instance: any) => T) => Promise<T>)(stub, fn);
}

it("a user's account logs through its own redactor alone: its env secrets, retired ones and the Worker's hidden, no pass through other users' threads", async () => {
  await bobsThreads();
  // A user of no thread: only the account itself can know its secrets.
  const userId = `log-owner-${crypto.randomUUID()}`;
  const raw = vars.ACCOUNT.get(vars.ACCOUNT.idFromName(userId));
  const account = raw as unknown as AccountApi;
  const first = `account-secret-one-${crypto.randomUUID()}`;
  const second = `account-secret-two-${crypto.randomUUID()}`;
  const mark = `mark-${crypto.randomUUID()}`;
  expect(await account.setEnv("OWN_KEY", first, "secret")).toEqual({ ok: true, value: null });
  // An unexpected throw in the account's code is what it logs (src/rpc.ts): one is planted.
  await inObject(raw, (instance) => {
    instance.reservations.release = () => {
      throw new Error(`${mark} ${first} ${second} ${vars.CANARY_WORKER} ${bobSecrets[0]}`);
    };
  });
  const before = await linesOf(mark, async () => expect(await account.releaseBudget("r1")).toMatchObject({ ok: false, error: { code: "internal_error" } }));
  expect(before).toEqual({ lines: [`weft: internal error ${mark} ${REDACTED} ${second} ${REDACTED} ${bobSecrets[0]}`], passes: 1 });
  // A new value: the old one retired (still hidden), the new one hidden too.
  expect(await account.setEnv("OWN_KEY", second, "secret")).toEqual({ ok: true, value: null });
  const after = await linesOf(mark, async () => account.releaseBudget("r2"));
  expect(after).toEqual({ lines: [`weft: internal error ${mark} ${REDACTED} ${REDACTED} ${REDACTED} ${bobSecrets[0]}`], passes: 1 });
});

it("the deployment's file schedules log through their own redactor alone: the Worker's secrets and the registry's secret defaults hidden", async () => {
  await bobsThreads();
  // An object of the class of its own (not the deployment's, which other files use).
  const raw = vars.SCHEDULES.get(vars.SCHEDULES.idFromName(`log-owner-${crypto.randomUUID()}`));
  const mark = `mark-${crypto.randomUUID()}`;
  await inObject(raw, (instance) => {
    instance.takeUp = async () => {
      throw new Error(`${mark} ${vars.CANARY_WORKER} ${AGENT_DEFAULT} ${bobSecrets[1]}`);
    };
  });
  const logged = await linesOf(mark, () => (raw as unknown as { takeUpFile(name: string): Promise<void> }).takeUpFile("pulse"));
  expect(logged).toEqual({ lines: [`weft: file schedule pulse: ${mark} ${REDACTED} ${REDACTED} ${bobSecrets[1]}`], passes: 1 });
});
