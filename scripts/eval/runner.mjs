// @ts-check
/**
 * Runs a suite: every case for every candidate on its own fresh dry-run thread, at most
 * `concurrency` at a time, then scores each transcript and totals each candidate.
 * @module
 */
import { withThread } from "./run-case.mjs";
import { scoreAnswer, scoreCustom, scoreToolCalls, scoreTrajectory } from "./scorers.mjs";
import { scoreJudge } from "./judge.mjs";

/**
 * @typedef {{ caseId: string, pass: boolean, scores: import("./scorers.mjs").Score[], threadId: string | null,
 *   status: string, error?: string, text: string, requested: Array<{ name: string, raw: string }>,
 *   usage: import("./run-case.mjs").Usage, turnMs: number[], cleanupError?: string }} CaseResult
 *   `cleanupError`: why the case's thread could not be deleted (it stays in the caller's account)
 * @typedef {{ name: string, model: string, results: CaseResult[], passed: number, total: number,
 *   exact: [number, number], tokens: { input: number, output: number, estimated: number }, cost: number | null,
 *   p50Ms: number | null, p95Ms: number | null }} CandidateResult
 * @typedef {{ suite: string, cases: number, threshold: number, leftOut: Array<{ reason: string, count: number }>,
 *   candidates: CandidateResult[] }} EvalResult
 *   a candidate's `cost`: at its `price` when it has one, else at weft's price table (null when a model has none)
 */

/** Runs `work` over `items` with at most `limit` in flight. @template T @param {T[]} items @param {number} limit @param {(item: T) => Promise<void>} work */
export async function pool(items, limit, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(/** @type {T} */ (items[next++]));
    }),
  );
}

/**
 * @param {import("./suite.mjs").Suite} suite
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client
 * @param {{ concurrency?: number, cleanup?: boolean, onProgress?: (done: number, total: number) => void }} [opts]
 *   `cleanup`: delete each case's threads once scored (for a weft that keeps them)
 * @returns {Promise<EvalResult>}
 */
export async function runSuite(suite, client, opts = {}) {
  const work = suite.candidates.flatMap((candidate) => suite.cases.map((kase) => ({ candidate, kase })));
  /** @type {Map<string, CaseResult[]>} */
  const byCandidate = new Map(suite.candidates.map((c) => [c.name, []]));
  let done = 0;
  await pool(work, opts.concurrency ?? suite.concurrency, async ({ candidate, kase }) => {
    const result = await scoreCase(client, suite, kase, candidate, opts.cleanup === true);
    byCandidate.get(candidate.name)?.push(result);
    opts.onProgress?.(++done, work.length);
  });
  const order = new Map(suite.cases.map((c, i) => [c.id, i]));
  return {
    suite: suite.name,
    cases: suite.cases.length,
    threshold: suite.threshold,
    leftOut: suite.leftOut,
    candidates: suite.candidates.map((c) => totals(c, (byCandidate.get(c.name) ?? []).sort((a, b) => (order.get(a.caseId) ?? 0) - (order.get(b.caseId) ?? 0)))),
  };
}

/**
 * Plays and scores one case. A thread that failed, stopped or waits for a person fails the case
 * with that reason, beside whatever the scorers say.
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client @param {import("./suite.mjs").Suite} suite
 * @param {import("./suite.mjs").Case} kase @param {import("./suite.mjs").Candidate} candidate
 * @param {boolean} cleanup delete the case's threads once scored
 * @returns {Promise<CaseResult>}
 */
export async function scoreCase(client, suite, kase, candidate, cleanup = false) {
  const opts = { timeoutMs: suite.timeoutMs, cleanup };
  const { value, cleanupError } = await withThread(client, kase, candidate, opts, (t) => scoreTranscript(client, suite, kase, candidate, t, opts));
  return cleanupError ? { ...value, cleanupError } : value;
}

/**
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client @param {import("./suite.mjs").Suite} suite
 * @param {import("./suite.mjs").Case} kase @param {import("./suite.mjs").Candidate} candidate
 * @param {import("./run-case.mjs").Transcript} t @param {{ timeoutMs: number, cleanup: boolean }} opts
 * @returns {Promise<CaseResult>}
 */
async function scoreTranscript(client, suite, kase, candidate, t, opts) {
  /** @type {import("./scorers.mjs").Score[]} */
  const scores = [];
  if (t.status !== "completed") scores.push({ scorer: "thread", pass: false, detail: t.error ?? t.status });
  const e = kase.expect;
  if (e.toolCalls) scores.push(scoreToolCalls(e.toolCalls, t));
  if (e.trajectory) scores.push(scoreTrajectory(e.trajectory, t));
  if (e.answer) scores.push(...scoreAnswer(e.answer, t));
  if (e.judge && suite.judge) scores.push(await scoreJudge(client, suite.judge, e.judge.rubric, kase, t, opts));
  for (const name of e.custom ?? []) scores.push(await scoreCustom(name, /** @type {import("./suite.mjs").CustomScorer} */ (suite.scorers[name]), { ...t, case: kase, candidate }));
  return {
    caseId: kase.id,
    pass: scores.every((s) => s.pass),
    scores,
    threadId: t.threadId,
    status: t.status,
    ...(t.error ? { error: t.error } : {}),
    text: t.text,
    requested: t.requested.map((c) => ({ name: c.name, raw: c.raw })),
    usage: t.usage,
    turnMs: t.turnMs,
  };
}

/** @param {import("./suite.mjs").Candidate} c @param {CaseResult[]} results @returns {CandidateResult} */
function totals(c, results) {
  const withCalls = results.filter((r) => r.scores.some((s) => s.scorer === "toolCalls"));
  const exact = withCalls.filter((r) => r.scores.find((s) => s.scorer === "toolCalls")?.pass && r.status === "completed").length;
  const tokens = results.reduce((t, r) => ({ input: t.input + r.usage.input, output: t.output + r.usage.output, estimated: t.estimated + r.usage.estimated }), { input: 0, output: 0, estimated: 0 });
  const priced = results.every((r) => r.usage.costUsd !== null) ? results.reduce((sum, r) => sum + (r.usage.costUsd ?? 0), 0) : null;
  const times = results.flatMap((r) => r.turnMs).sort((a, b) => a - b);
  return {
    name: c.name,
    model: c.model ?? "scripted",
    results,
    passed: results.filter((r) => r.pass).length,
    total: results.length,
    exact: [exact, withCalls.length],
    tokens,
    cost: c.price ? (tokens.input * c.price.input + tokens.output * c.price.output) / 1e6 : priced,
    p50Ms: quantile(times, 0.5),
    p95Ms: quantile(times, 0.95),
  };
}

/** Nearest-rank quantile of sorted `xs`, or null when empty. @param {number[]} xs @param {number} q */
export function quantile(xs, q) {
  if (xs.length === 0) return null;
  return xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))] ?? null;
}
