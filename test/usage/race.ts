/**
 * The budget race: many concurrent turns of one user across as many threads against a user budget
 * that allows `allowed` of them, with crashes of threads while their request streams. Shared by
 * test/usage/budgets.test.ts (small) and `npm run budget-race` (50 turns).
 */
import type { EventFrame } from "../../src/protocol.js";
import { type FakeStep, fakeEnv, fakeKey, fakeRequests, releaseFake, scriptFake } from "../fake-provider.js";
import { inThread, rawStub, stubOf, until as untilWithin } from "../helpers.js";
import { accountOfUser, freshUser, send } from "./users.js";

/** `until` bounded at 120 s: the race and the usage tests run many threads on a loaded machine. */
export const until = (check: () => Promise<boolean>, what: string) => untilWithin(check, what, 120_000);

/** Options of {@link runRace}. */
export interface RaceOptions {
  turns: number;
  allowed: number;
  /** Share of turns whose thread is crashed while its request streams (0..1). */
  crashRate: number;
  seed: number;
}

/** What a race found. */
export interface RaceResult {
  turns: number;
  limit: number;
  used: number;
  leaked: number;
  /** Requests refused by the budget (each `budget_exceeded` event). */
  refused: number;
  /** Refused requests that reached the provider anyway (must be 0). */
  refusedThatCalled: number;
  crashed: number;
  answered: number;
  /** Requests that failed after they were sent (a crash's abort, a deadline under load): recorded and charged too. */
  failed: number;
  /** Requests that reached the fake provider (answered, failed, or cut by a crash): each may be billed. */
  reached: number;
  /** The input tokens the fake provider bills for them (what each reports, a cut one's included). */
  billedInput: number;
  /** What one request reserves (and reports using, when answered). */
  reserve: number;
}

/** The closing line `npm run budget-race` prints. */
export function raceLine(r: RaceResult): string {
  return `budget-race: ${r.turns} turns, limit ${r.limit}, used ${r.used} <= ${r.limit}, ${r.leaked} leaked reservations, ${r.refused} refused before any provider call`;
}

/** The extra line `npm run budget-race` prints: the requests the provider saw, held against the limit too. */
export function reachedLine(r: RaceResult): string {
  return `budget-race: ${r.reached} requests reached the provider: ${r.answered} answered and ${r.crashed} cut by a crash (each charged its reservation, ${r.reserve}), ${r.failed} failed after they were sent (charged what they sent and got); billed input ${r.billedInput}, answered and cut ${(r.answered + r.crashed) * r.reserve} <= ${r.limit}`;
}

/** A small seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPEC = "openai-chat:gpt-4.1-mini";

async function newThread(token: string, key: string): Promise<string> {
  const created = await send(token, "POST", "/threads", { agent: "metered", env: fakeEnv(SPEC, key) });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.threadId as string;
}

/** A thread's stored events (read inside its Durable Object: the threads belong to a user of their own). */
export function framesOf(threadId: string): Promise<EventFrame[]> {
  return inThread(threadId, (instance) => instance.store.events.since(0) as EventFrame[]);
}

async function finished(threadId: string): Promise<EventFrame | undefined> {
  return (await framesOf(threadId)).find((f) => f.type === "turn_finished");
}

/**
 * Runs the race. Every turn's one request reserves the same maximum R (found by a probe refused
 * at a 1-token budget) and reports exactly R used, so the user budget of `allowed` x R admits
 * exactly `allowed` answers whatever the timing; a crashed request's reservation is charged
 * when the thread's next instance reserves again (or the lease ends), so every request that
 * reached the provider counts, and at most `allowed` of them do.
 */
export async function runRace(options: RaceOptions): Promise<RaceResult> {
  const rand = random(options.seed);
  const user = await freshUser("race");
  const account = accountOfUser(user.userId);
  // The probe: what one request reserves, read off its refusal.
  await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "lifetime", tokens: 1 }] });
  const probeKey = fakeKey("probe");
  const probe = await newThread(user.token, probeKey);
  await send(user.token, "POST", `/threads/${probe}/messages`, { content: "go" });
  await stubOf(probe).waitIdle();
  const refusal = (await framesOf(probe)).find((f) => f.type === "budget_exceeded")?.data as { requested: number } | undefined;
  if (!refusal) throw new Error("the probe was not refused");
  const reserve = refusal.requested;
  const limit = reserve * options.allowed;
  await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "user", period: "lifetime", tokens: limit }] });

  const threads: Array<{ id: string; key: string; crash: boolean }> = [];
  for (let i = 0; i < options.turns; i++) {
    const key = fakeKey(`race${i}`);
    const crash = rand() < options.crashRate;
    // Streamed slowly (a part every 60 ms). A thread picked to crash has its stream held after its
    // first parts until the crash, so the crash lands while the request is under way however slow
    // the machine; it is asked again once by the restarted thread (the second step).
    const step: FakeStep = { text: `answer number ${i}`, usage: { input: reserve - 64, output: 64 }, delayMs: 60, chunk: 1 };
    await scriptFake(key, [crash ? { ...step, hold: { afterEvents: 2 } } : step, { ...step, delayMs: 0 }]);
    threads.push({ id: await newThread(user.token, key), key, crash });
  }
  await Promise.all(threads.map((t) => send(user.token, "POST", `/threads/${t.id}/messages`, { content: "go" })));
  let crashed = 0;
  // Each thread picked to crash is aborted once its request reached the provider, unless its turn ended first.
  await Promise.all(
    threads
      .filter((t) => t.crash)
      .map(async (t) => {
        await until(async () => (await fakeRequests(t.key)).length > 0 || (await finished(t.id)) !== undefined, `thread ${t.id} requested or finished`);
        if ((await fakeRequests(t.key)).length === 0 || (await finished(t.id)) !== undefined) {
          t.crash = false;
          return;
        }
        crashed++;
        await (rawStub(t.id) as unknown as { restartForTest(): Promise<void> }).restartForTest().catch(() => undefined);
        // The cut stream's hold ends (its reader is gone); the restarted thread's request is not held.
        await releaseFake(t.key);
      }),
  );
  for (const t of threads) {
    await until(async () => (await finished(t.id)) !== undefined, `thread ${t.id} finished its turn`);
  }
  let refused = 0;
  let refusedThatCalled = 0;
  let answered = 0;
  let failed = 0;
  let reached = 0;
  for (const t of threads) {
    const usage = (await send(user.token, "GET", `/threads/${t.id}/usage`)).body;
    const refusals = (await framesOf(t.id)).filter((f) => f.type === "budget_exceeded").length;
    const calls = (await fakeRequests(t.key)).length;
    reached += calls;
    refused += refusals;
    const failedHere = usage.requests.filter((r: { failed: boolean }) => r.failed).length;
    answered += usage.total.requests - failedHere;
    failed += failedHere;
    // Every provider call is a recorded request (answered or failed) or the one a crash cut: a refused one made none.
    const cut = calls - usage.total.requests;
    if (cut > (t.crash ? 1 : 0)) refusedThatCalled += cut - (t.crash ? 1 : 0);
  }
  // The rollups are sent when each answer is recorded, not awaited by the turn: read once all have landed.
  const rolledUp = async () => (await send(user.token, "GET", "/account/usage?groupBy=agent")).body.total;
  // Each cut request is a charge of its own in the account (its reservation, estimated).
  await until(async () => (await rolledUp()).requests >= answered + failed + crashed, "every recorded or cut request rolled up in the account");
  const total = await rolledUp();
  const leaked = await account.openReservations();
  // Every call the fake provider saw is billed the input it reports (the scripted `reserve - 64`).
  const billedInput = reached * (reserve - 64);
  return { turns: options.turns, limit, used: total.inputTokens + total.outputTokens, leaked, refused, refusedThatCalled, crashed, answered, failed, reached, billedInput, reserve };
}
