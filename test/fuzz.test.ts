import fc from "fast-check";
import { inject, it, expect } from "vitest";
import { INTERLEAVING, type Verdict, runInterleaving } from "./fuzz/interleavings.js";
import { fuzzRoutes } from "./fuzz/routes.js";
import { createThread, json, runTurn } from "./helpers.js";

declare module "vitest" {
  interface ProvidedContext {
    /** `full` under `npm run fuzz`; the short version runs in `npm test`. */
    fuzzScale?: "short" | "full";
    /** Replays a run: the seed it printed. */
    fuzzSeed?: number;
  }
}

const full = inject("fuzzScale") === "full";
const REQUESTS = full ? 10_000 : 600;
const INTERLEAVINGS = full ? 1_000 : 25;
// The short version in `npm test` replays one fixed seed so CI is reproducible; `npm run fuzz`
// draws a fresh seed each run and prints it.
const seed = Number(inject("fuzzSeed") ?? (full ? Date.now() % 1_000_000 : 20261130));

it(`fuzz: ${REQUESTS} requests over every route and ${INTERLEAVINGS} interleavings against one thread each`, { timeout: full ? 3_600_000 : 240_000 }, async () => {
  // Real threads for the requests to land on: a plain one, one that waits for approval, one busy.
  const plain = await createThread({ agent: "guarantees" });
  await runTurn(plain, "hi", [{ toolCalls: [{ id: "c1", name: "big_result", arguments: {} }] }, { text: "ok" }]);
  const waiting = await createThread({ agent: "guarantees" });
  await runTurn(waiting, "pay", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }]);
  console.log(`fuzz: seed ${seed}`);
  const routes = await fuzzRoutes(REQUESTS, seed, [plain, waiting]);
  console.log(`fuzz: routes done`);

  const crashed: string[] = [];
  for (const id of routes.threads) {
    const info = await json("GET", `/threads/${id}`);
    if (info.status !== 200 && !(info.status === 404 && routes.deleted.has(id))) crashed.push(`${id}: ${info.status}`);
  }

  const verdicts: Verdict[] = [];
  for (const ops of fc.sample(INTERLEAVING, { numRuns: INTERLEAVINGS, seed })) {
    // A thread that never settles is a crashed thread, reported with the ops that led there.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<Verdict>((resolve) => {
      timer = setTimeout(
        () => resolve({ serverErrors: [], brokenHistory: [], notOneResult: [], crashedThread: [`hung: ${JSON.stringify(ops).slice(0, 600)}`] }),
        30_000,
      );
    });
    verdicts.push(await Promise.race([runInterleaving(ops), hung]));
    clearTimeout(timer);
  }
  const all = (key: keyof Verdict) => verdicts.flatMap((v) => v[key]);
  const serverErrors = [...routes.serverErrors, ...all("serverErrors")];
  crashed.push(...all("crashedThread"));
  const line = `fuzz: ${routes.requests} requests over ${routes.routes} routes, ${serverErrors.length} server errors, ${crashed.length} crashed threads; ${verdicts.length} interleavings, ${all("brokenHistory").length} broken histories, ${all("notOneResult").length} calls without exactly one result`;
  for (const problem of [...serverErrors, ...routes.uncoded.map((u) => `uncoded refusal: ${u}`), ...crashed, ...all("brokenHistory"), ...all("notOneResult")].slice(0, 20)) {
    console.log(`  ${problem}`);
  }
  console.log(`(seed ${seed}; ${routes.uncoded.length} refusals without a code)`);
  console.log(line);
  expect(routes.uncoded).toEqual([]);
  expect(line).toBe(
    `fuzz: ${routes.requests} requests over ${routes.routes} routes, 0 server errors, 0 crashed threads; ${verdicts.length} interleavings, 0 broken histories, 0 calls without exactly one result`,
  );
  expect(routes.requests).toBeGreaterThanOrEqual(REQUESTS * 0.95);
});
