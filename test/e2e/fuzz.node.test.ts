import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { type DevServer, sharedWeft } from "./support.js";
import { devTarget } from "../fuzz/dev.js";
import { runFuzz } from "../fuzz/run.js";

const full = inject("fuzzScale") === "full";
const REQUESTS = full ? 10_000 : 300;
const INTERLEAVINGS = full ? 1_000 : 12;
// The full run draws a fresh seed and prints it; the short one replays a fixed seed.
const seed = Number(inject("fuzzSeed") ?? (full ? Date.now() % 1_000_000 : 20261130));

let server: DevServer;
beforeAll(async () => {
  // The fixtures' own config, with its test API keys: the fuzz sends good, missing and bad tokens.
  server = await sharedWeft("secured");
});
afterAll(() => server?.stop());

it(`fuzz against wrangler dev: ${REQUESTS} requests over every route, ${INTERLEAVINGS} interleavings`, { timeout: full ? 3_600_000 : 300_000 }, async () => {
  const report = await runFuzz(devTarget(server.url), { requests: REQUESTS, interleavings: INTERLEAVINGS, seed, concurrency: full ? 4 : 2, hungMs: 60_000 });
  for (const problem of [...report.problems, ...report.uncoded.map((u) => `uncoded refusal: ${u}`)].slice(0, 20)) console.log(`  ${problem}`);
  console.log(`(seed ${seed}; ${report.uncoded.length} refusals without a code; ${report.unformed} drawn requests left out, their URL cannot be formed)`);
  console.log(report.line);
  expect(report.uncoded).toEqual([]);
  expect(report.problems).toEqual([]);
  expect(report.requests + report.unformed).toBe(REQUESTS);
  expect(report.requests).toBeGreaterThanOrEqual(REQUESTS * 0.95);
  expect(report.interleavings).toBe(INTERLEAVINGS);
});
