/**
 * `weft eval <suite>` and `weft eval --from-threads <ids>`. Cases run against a live weft: the
 * one `--url` names, or a local `wrangler dev` of the project started for the run (the suite's
 * `runtime.config` may name another wrangler.toml), so they meet the project's real Worker, tools
 * and configured providers, exactly as users' threads do. Exit code 0 when every candidate meets
 * the threshold; 1 when one falls under it (or weft refuses); 2 for a bad suite or usage.
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { evalClient } from "../../scripts/eval/client.mjs";
import { casesFromThreads, resolveThreadIds } from "../../scripts/eval/from-threads.mjs";
import { countLine, diffLines, htmlReport, leftOutLines, summaryTable, underThreshold } from "../../scripts/eval/report.mjs";
import { runSuite } from "../../scripts/eval/runner.mjs";
import { loadSuite, SuiteError } from "../../scripts/eval/suite.mjs";
import { envTokenWithheld, note, say } from "./command.ts";
import { type Runtime, withRuntime } from "./runtime.ts";

interface EvalOptions {
  url?: string;
  auth?: string;
  concurrency?: number;
  threshold?: number;
  html?: string;
  json?: string;
  compare?: string;
  fromThreads?: string;
  out?: string;
  maxDiffs: number;
  keepThreads?: boolean;
}

/** A progress bar on a terminal; a line every 10% otherwise (CI logs). */
function progress(): (done: number, total: number) => void {
  let shown = -1;
  return (done, total) => {
    if (process.stderr.isTTY) {
      const width = 30;
      const full = Math.round((width * done) / total);
      process.stderr.write(`\reval: [${"#".repeat(full)}${"-".repeat(width - full)}] ${done}/${total}${done === total ? "\n" : ""}`);
      return;
    }
    const tenth = Math.floor((10 * done) / total);
    if (tenth !== shown) {
      shown = tenth;
      note(`eval: ${done}/${total} case runs`);
    }
  };
}

const rate = (value: string) => {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError("expected a pass rate from 0 to 1");
  return n;
};
const count = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError("expected a whole number above 0");
  return Number(value);
};

/** Adds `eval` to the program. */
export function evalCommand(weft: Command): void {
  weft
    .command("eval")
    .argument("[suite]", "suite folder (suite.mjs or suite.json, cases/*.json); see docs/evals.md")
    .description("run an eval suite: every case for every candidate on a fresh dry-run thread; prints a summary and the failures")
    .addOption(new Option("--url <url>", "a running weft (default: start a local one for this project)").env("WEFT_URL"))
    .addOption(new Option("--auth <token>", "bearer token: a JWT or an API key").env("WEFT_TOKEN"))
    .option("--concurrency <n>", "case runs at once (default: the suite's, else 4)", count)
    .option("--threshold <rate>", "lowest pass rate a candidate may have, 0 to 1 (default: the suite's, else 1)", rate)
    .option("--html <file>", "write the HTML report (two candidates side by side)")
    .option("--json <file>", "write every result as JSON")
    .option("--compare <a,b>", "the two candidates the HTML report puts side by side (default: the first two)")
    .option("--max-diffs <n>", "failure lines printed (all are in --json and --html)", count, 50)
    .option("--keep-threads", "with --url: keep each case's thread for inspection (by default they are deleted once scored)")
    .option("--from-threads <ids>", "export threads of a running weft (--url, default http://localhost:8787) as a suite: comma-separated ids, latest:<n>, agent:<name>")
    .option("--out <folder>", "where --from-threads writes the suite (default: evals/from-threads)")
    .action(async (suiteDir: string | undefined, opts: EvalOptions, cmd: Command) => {
      try {
        if (opts.fromThreads !== undefined) return await exportThreads(opts, cmd);
        if (!suiteDir) return weft.error("error: give a suite folder, or --from-threads <ids>", { exitCode: 2 });
        await runEval(suiteDir, opts, cmd);
      } catch (e) {
        const err = e as Error & { code?: string };
        note(`weft eval: ${err.message}`);
        process.exitCode = err instanceof SuiteError ? 2 : 1;
      }
    });
}

/** The token to send: `--auth`, else the suite's; an env `WEFT_TOKEN` only as {@link envTokenWithheld} allows. */
function tokenFor(opts: EvalOptions, cmd: Command, runtime: Runtime, base: string, suiteToken?: string): string | null {
  if (opts.auth && !envTokenWithheld(opts.auth, cmd, runtime, base)) return opts.auth;
  return suiteToken ?? null;
}

async function runEval(suiteDir: string, opts: EvalOptions, cmd: Command): Promise<void> {
  const suite = await loadSuite(suiteDir);
  const pair = opts.compare ? (opts.compare.split(",") as [string, string]) : null;
  if (pair && (pair.length !== 2 || !pair.every((n) => suite.candidates.some((c) => c.name === n)))) throw new SuiteError("--compare", `expected two candidate names of the suite, got ${opts.compare}`);
  const runtime = { ...(opts.url ? { url: opts.url } : {}), dir: suite.runtime.project ?? suite.dir, ...(suite.runtime.config ? { config: suite.runtime.config } : {}), vars: suite.runtime.vars };
  await withRuntime(runtime, async (base, rt) => {
    const client = evalClient(base, tokenFor(opts, cmd, rt, base, suite.runtime.token));
    const runs = suite.cases.length * suite.candidates.length;
    note(`eval: ${suite.name}: ${suite.cases.length} cases x ${suite.candidates.length} candidate(s) = ${runs} runs against ${base}`);
    // Against a weft that keeps its threads (--url), each case's threads are deleted once scored.
    const cleanup = opts.url !== undefined && !opts.keepThreads;
    const result = await runSuite(suite, client, { ...(opts.concurrency ? { concurrency: opts.concurrency } : {}), cleanup, onProgress: progress() });
    say(countLine(result));
    leftOutLines(result).forEach(say);
    summaryTable(result).forEach(say);
    const diffs = diffLines(result);
    diffs.slice(0, opts.maxDiffs).forEach(say);
    const kept = result.candidates.flatMap((c) => c.results.filter((r) => r.cleanupError));
    if (kept.length > 0) note(`eval: ${kept.length} case thread(s) could not be deleted and stay in your account; first: ${kept[0]?.cleanupError}`);
    if (diffs.length > opts.maxDiffs) say(`... ${diffs.length - opts.maxDiffs} more failure lines (all of them with --json or --html)`);
    if (opts.html) write(opts.html, htmlReport(result, pair));
    if (opts.json) write(opts.json, `${JSON.stringify(result, null, 2)}\n`);
    const threshold = opts.threshold ?? suite.threshold;
    const under = underThreshold(result, threshold);
    for (const c of under) say(`eval: candidate ${c.name} passed ${c.passed}/${c.total}, under the threshold ${threshold}`);
    if (under.length > 0) process.exitCode = 1;
  });
}

async function exportThreads(opts: EvalOptions, cmd: Command): Promise<void> {
  if (!(opts.fromThreads ?? "").trim()) throw new SuiteError("--from-threads", "expected thread ids or latest:<n> or agent:<name>, comma-separated");
  // Stored threads live in a running weft: like the thread commands, default to the local `npm start`.
  // Without --url, the running local weft (a probe, so it is known as found, not named).
  await withRuntime(opts.url ? { url: opts.url } : {}, async (base, rt) => {
    const client = evalClient(base, tokenFor(opts, cmd, rt, base));
    const ids = await resolveThreadIds(client, opts.fromThreads ?? "");
    if (ids.length === 0) throw new Error(`--from-threads ${opts.fromThreads}: names no thread of yours`);
    const cases = await casesFromThreads(client, ids);
    const out = resolve(opts.out ?? "evals/from-threads");
    mkdirSync(join(out, "cases"), { recursive: true });
    // The candidate with no model uses whatever the weft is configured with (its WEFT_MODEL).
    write(join(out, "suite.json"), `${JSON.stringify({ name: "from-threads", candidates: [{ name: "current" }] }, null, 2)}\n`);
    write(join(out, "cases", "threads.json"), `${JSON.stringify(cases, null, 2)}\n`);
    say(`eval: exported ${cases.length} cases from ${ids.length} thread(s) to ${out}`);
  });
}

function write(file: string, text: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  writeFileSync(file, text);
}
