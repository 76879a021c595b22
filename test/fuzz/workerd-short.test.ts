import { inject, it, expect } from "vitest";
import { workerdTarget } from "./workerd.js";
import { runFuzz } from "./run.js";

// The short fuzz inside workerd, where a crash is a real `ctx.abort()`; `npm run fuzz` runs the
// full one against `wrangler dev` (test/e2e/fuzz.node.test.ts). One fixed seed, so CI replays it.
const REQUESTS = 600;
const INTERLEAVINGS = 25;
const seed = Number(inject("fuzzSeed") ?? 20261130);

it(`fuzz: ${REQUESTS} requests over every route and ${INTERLEAVINGS} interleavings against one thread each`, { timeout: 240_000 }, async () => {
  const report = await runFuzz(workerdTarget, { requests: REQUESTS, interleavings: INTERLEAVINGS, seed, concurrency: 1, hungMs: 30_000 });
  for (const problem of [...report.problems, ...report.uncoded.map((u) => `uncoded refusal: ${u}`)].slice(0, 20)) console.log(`  ${problem}`);
  console.log(`(seed ${seed}; ${report.uncoded.length} refusals without a code; ${report.unformed} drawn requests left out, their URL cannot be formed)`);
  console.log(report.line);
  expect(report.uncoded).toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.line).toMatch(/, 0 server errors, 0 crashed threads; \d+ interleavings, 0 broken histories, 0 calls without exactly one result$/);
  expect(report.requests + report.unformed).toBe(REQUESTS);
  expect(report.requests).toBeGreaterThanOrEqual(REQUESTS * 0.95);
});
