// @ts-check
/**
 * Runs test suites one after another, each whatever the ones before it did, then prints one line
 * per suite and the whole run's wall time, and answers whether all passed. `npm test`
 * (scripts/test.mjs) runs weft's suites with it.
 * @module
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

/**
 * @typedef {{ name: string, command: string, args: string[] }} Suite
 * @typedef {{ name: string, status: number | null, seconds: number }} SuiteResult
 */

/**
 * Runs every suite in `cwd` with its output shown as it comes, then prints a summary.
 * @param {Suite[]} suites
 * @param {string} cwd
 * @returns {{ results: SuiteResult[], failed: SuiteResult[], seconds: number }} `seconds`: the whole run's wall time
 */
export function runSuites(suites, cwd) {
  const runStarted = Date.now();
  /** @type {SuiteResult[]} */
  const results = [];
  for (const suite of suites) {
    const started = Date.now();
    console.log(`\ntest: ${suite.name} (${[path.basename(suite.command), ...suite.args].join(" ")})`);
    const run = spawnSync(suite.command, suite.args, { cwd, stdio: "inherit" });
    results.push({ name: suite.name, status: run.error ? null : run.status, seconds: (Date.now() - started) / 1000 });
  }
  console.log("\ntest: summary");
  for (const r of results) {
    console.log(`  ${r.status === 0 ? "passed" : "FAILED"}  ${r.name.padEnd(9)} ${r.seconds.toFixed(1)} s${r.status === 0 ? "" : ` (exit ${r.status ?? "none"})`}`);
  }
  const failed = results.filter((r) => r.status !== 0);
  const seconds = (Date.now() - runStarted) / 1000;
  // The charter's budget is on this number: npm test's wall time, every suite included.
  console.log(`test: wall time ${seconds.toFixed(1)} s, ${failed.length === 0 ? `${results.length} suites passed` : `${failed.length} of ${results.length} suites failed`}`);
  if (failed.length > 0) console.log(`test: ${failed.length} of ${results.length} suites failed: ${failed.map((r) => r.name).join(", ")}`);
  return { results, failed, seconds };
}
