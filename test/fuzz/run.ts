/**
 * One fuzz run against a target: the route fuzz, then the interleavings (several at once, each on
 * its own thread), judged into the one line `npm run fuzz` prints.
 * @module
 */
import fc from "fast-check";
import { INTERLEAVING, type Verdict, runInterleaving } from "./interleavings.js";
import { fuzzRoutes } from "./routes.js";
import { type FuzzTarget, sendJson } from "./target.js";

/** Sizes and seed of a run. */
export interface FuzzPlan {
  requests: number;
  interleavings: number;
  seed: number;
  /** Interleavings in flight at once (each has its own thread). */
  concurrency: number;
  /** A thread that has not settled after this long counts as crashed. */
  hungMs: number;
}

/** What a run found: the printed line, the problems behind it, and the counts the line holds. */
export interface FuzzReport {
  line: string;
  problems: string[];
  uncoded: string[];
  requests: number;
  /** Drawn requests left out because the client cannot form their URL; `requests + unformed` is the plan's count. */
  unformed: number;
  interleavings: number;
}

async function turn(target: FuzzTarget, id: string, content: string, script: unknown[]): Promise<void> {
  const res = await sendJson(target, "POST", `/threads/${id}/messages`, { content, script });
  if (res.status !== 202) throw new Error(`post failed: ${res.status} ${JSON.stringify(res.body)}`);
  await target.waitIdle(id);
}

async function thread(target: FuzzTarget): Promise<string> {
  const res = await sendJson<{ threadId: string }>(target, "POST", "/threads", { agent: "guarantees" });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.threadId;
}

/** Runs the plan against the target. */
export async function runFuzz(target: FuzzTarget, plan: FuzzPlan, log: (line: string) => void = console.log): Promise<FuzzReport> {
  // Real threads for the requests to land on: a plain one and one that waits for approval.
  const plain = await thread(target);
  await turn(target, plain, "hi", [{ toolCalls: [{ id: "c1", name: "big_result", arguments: {} }] }, { text: "ok" }]);
  const waiting = await thread(target);
  await turn(target, waiting, "pay", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }]);
  log(`fuzz: seed ${plan.seed}`);
  const routes = await fuzzRoutes(target, plan.requests, plan.seed, [plain, waiting]);
  log(`fuzz: ${routes.requests} route requests done`);
  if (routes.unformed.length > 0) log(`fuzz: ${routes.unformed.length} drawn requests left out: the client cannot form their URL (first: ${routes.unformed[0]!.slice(0, 120)})`);

  const crashed: string[] = [];
  for (const id of routes.threads) {
    const info = await sendJson(target, "GET", `/threads/${id}`);
    if (info.status !== 200 && !(info.status === 404 && routes.deleted.has(id))) crashed.push(`${id}: ${info.status}`);
  }

  const samples = fc.sample(INTERLEAVING, { numRuns: plan.interleavings, seed: plan.seed });
  const verdicts: Verdict[] = [];
  const judge = async (ops: (typeof samples)[number]): Promise<Verdict> => {
    // A thread that never settles is a crashed thread, reported with the ops that led there.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<Verdict>((resolve) => {
      timer = setTimeout(() => resolve({ serverErrors: [], brokenHistory: [], notOneResult: [], crashedThread: [`hung: ${JSON.stringify(ops).slice(0, 600)}`] }), plan.hungMs);
    });
    const failed = (e: Error): Verdict => ({ serverErrors: [], brokenHistory: [], notOneResult: [], crashedThread: [`judging failed: ${e.message.slice(0, 300)}`] });
    try {
      return await Promise.race([runInterleaving(target, ops).catch(failed), hung]);
    } finally {
      clearTimeout(timer);
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.concurrency }, async () => {
      while (next < samples.length) {
        const ops = samples[next++]!;
        verdicts.push(await judge(ops));
        if (verdicts.length % 100 === 0) log(`fuzz: ${verdicts.length} interleavings judged`);
      }
    }),
  );
  const all = (key: keyof Verdict) => verdicts.flatMap((v) => v[key]);
  const serverErrors = [...routes.serverErrors, ...all("serverErrors")];
  crashed.push(...all("crashedThread"));
  const line = `fuzz: ${routes.requests} requests over ${routes.routes} routes, ${serverErrors.length} server errors, ${crashed.length} crashed threads; ${verdicts.length} interleavings, ${all("brokenHistory").length} broken histories, ${all("notOneResult").length} calls without exactly one result`;
  const problems = [...serverErrors, ...crashed, ...all("brokenHistory"), ...all("notOneResult")];
  return { line, problems, uncoded: routes.uncoded, requests: routes.requests, unformed: routes.unformed.length, interleavings: verdicts.length };
}
