// @ts-check
/**
 * Runs test suites, each whatever the ones before it did, then prints one line per suite and the
 * whole run's wall time, and answers whether all passed. `npm test` (scripts/test.mjs) runs
 * weft's suites with `runLanes`: lanes side by side, the suites of one lane one after another.
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";

/**
 * @typedef {{ name: string, command: string, args: string[] }} Suite
 * @typedef {{ name: string, status: number | null, seconds: number }} SuiteResult
 * @typedef {{ results: SuiteResult[], failed: SuiteResult[], seconds: number }} RunResult
 *   `seconds`: the whole run's wall time
 */

const heading = (/** @type {Suite} */ suite) => `\ntest: ${suite.name} (${[path.basename(suite.command), ...suite.args].join(" ")})`;

/**
 * Runs every suite in `cwd`, one after another, with its output shown as it comes, then prints a summary.
 * @param {Suite[]} suites
 * @param {string} cwd
 * @returns {RunResult}
 */
export function runSuites(suites, cwd) {
  const runStarted = Date.now();
  /** @type {SuiteResult[]} */
  const results = [];
  for (const suite of suites) {
    const started = Date.now();
    console.log(heading(suite));
    const run = spawnSync(suite.command, suite.args, { cwd, stdio: "inherit" });
    results.push({ name: suite.name, status: run.error ? null : run.status, seconds: (Date.now() - started) / 1000 });
  }
  return summarize(results, runStarted);
}

/**
 * Runs the suites of `before` one after another, then lanes side by side in `cwd`; the suites of
 * one lane run one after another, each whatever the one before it did. The first lane's output is
 * shown as it comes; another lane's output is kept and shown whole when its suite ends, so two
 * suites' lines never interleave. Then prints the summary, suites in the order given.
 * @param {Suite[][]} lanes
 * @param {string} cwd
 * @param {Suite[]} [before] suites every lane needs (building what they read)
 * @returns {Promise<RunResult>}
 */
export async function runLanes(lanes, cwd, before = []) {
  const runStarted = Date.now();
  /** @type {Map<Suite, SuiteResult>} */
  const done = new Map();
  for (const suite of before) done.set(suite, await runOne(suite, cwd, true));
  await Promise.all(
    lanes.map(async (lane, i) => {
      for (const suite of lane) done.set(suite, await runOne(suite, cwd, i === 0));
    }),
  );
  return summarize(
    [...before, ...lanes.flat()].map((s) => /** @type {SuiteResult} */ (done.get(s))),
    runStarted,
  );
}

/**
 * One suite: live output, or kept and printed whole at its end.
 * @param {Suite} suite
 * @param {string} cwd
 * @param {boolean} live
 * @returns {Promise<SuiteResult>}
 */
function runOne(suite, cwd, live) {
  const started = Date.now();
  if (live) console.log(heading(suite));
  /** @type {Buffer[]} */
  const kept = [];
  return new Promise((resolve) => {
    const child = spawn(suite.command, suite.args, { cwd, stdio: live ? "inherit" : ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (d) => kept.push(d));
    child.stderr?.on("data", (d) => kept.push(d));
    let finished = false;
    const finish = (/** @type {number | null} */ status) => {
      if (finished) return;
      finished = true;
      const seconds = (Date.now() - started) / 1000;
      if (!live) {
        console.log(`${heading(suite)} [ran beside the others, ${seconds.toFixed(1)} s]`);
        process.stdout.write(Buffer.concat(kept));
      }
      resolve({ name: suite.name, status, seconds });
    };
    child.once("error", () => finish(null));
    child.once("close", (code) => finish(code));
  });
}

/**
 * Prints one line per suite and the wall time line.
 * @param {SuiteResult[]} results
 * @param {number} runStarted
 * @returns {RunResult}
 */
function summarize(results, runStarted) {
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
