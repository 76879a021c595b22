#!/usr/bin/env node
// @ts-check
/**
 * `npm test`: every suite runs, one after another, whatever an earlier one did; then one line per
 * suite says how it ended and the exit status is 1 if any failed. (Chained with `&&`, a failing
 * type-check or workerd suite used to hide every suite after it.)
 *
 *   typecheck   the registries, then tsc over src, agents, test and the Node scripts
 *   workerd     `vitest run`: weft's own suites inside workerd, over test/fixtures/
 *   agents      the author's tests (`*.test.ts` under agents/) and the smoke test of agents/ (`npm run test:agents`)
 *   node        `vitest run --config test/node/vitest.config.ts`: build scripts, end-to-end runs
 *
 * Arguments after `--` go to every vitest run (a file filter, `--reporter`).
 * @module
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (/** @type {string} */ name) => path.join(ROOT, "node_modules", ".bin", name);
const extra = process.argv.slice(2);

/** @type {Array<{ name: string, command: string, args: string[] }>} */
const SUITES = [
  { name: "typecheck", command: "npm", args: ["run", "typecheck", "--silent"] },
  { name: "workerd", command: bin("vitest"), args: ["run", ...extra] },
  { name: "agents", command: bin("vitest"), args: ["run", "--config", "vitest.agents.config.ts", ...extra] },
  { name: "node", command: bin("vitest"), args: ["run", "--config", "test/node/vitest.config.ts", ...extra] },
];

/** @type {Array<{ name: string, status: number | null, seconds: number }>} */
const results = [];
for (const suite of SUITES) {
  const started = Date.now();
  console.log(`\ntest: ${suite.name} (${[path.basename(suite.command), ...suite.args].join(" ")})`);
  const run = spawnSync(suite.command, suite.args, { cwd: ROOT, stdio: "inherit" });
  results.push({ name: suite.name, status: run.error ? null : run.status, seconds: (Date.now() - started) / 1000 });
}

console.log("\ntest: summary");
for (const r of results) console.log(`  ${r.status === 0 ? "passed" : "FAILED"}  ${r.name.padEnd(9)} ${r.seconds.toFixed(1)} s${r.status === 0 ? "" : ` (exit ${r.status ?? "none"})`}`);
const failed = results.filter((r) => r.status !== 0);
if (failed.length > 0) console.log(`test: ${failed.length} of ${results.length} suites failed: ${failed.map((r) => r.name).join(", ")}`);
process.exit(failed.length > 0 ? 1 : 0);
