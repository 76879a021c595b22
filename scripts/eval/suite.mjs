// @ts-check
/**
 * Reads an eval suite folder: `suite.mjs` (its default export: the suite, or a function, maybe
 * async, returning it) or `suite.json`, plus every `cases/*.json` (one case, or a list of them).
 * The format is documented in docs/evals.md. Every problem is thrown as a `SuiteError` naming
 * the file and the path inside it.
 * @module
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** A suite that cannot be read: `where` is `file: path`. */
export class SuiteError extends Error {
  /** @param {string} where @param {string} problem */
  constructor(where, problem) {
    super(`${where}: ${problem}`);
    this.code = "invalid_suite";
  }
}

/**
 * @typedef {{ name: string, agent?: string, model?: string, env?: Record<string, unknown>,
 *   arguments?: Record<string, unknown>, price?: { input: number, output: number } }} Candidate
 *   `price` in dollars per million tokens; `model` absent means the scripted model playing each case's `script`
 * @typedef {{ name: string, arguments?: Record<string, unknown>, acceptable?: Record<string, unknown> }} ExpectedCall
 *   `acceptable`: BFCL's form, each argument's acceptable values (`""` among them: may be left out)
 * @typedef {{ toolCalls?: ExpectedCall[], trajectory?: string[], answer?: { contains?: string[], regex?: string, schema?: Record<string, unknown> },
 *   judge?: { rubric: string }, custom?: string[] }} Expect
 * @typedef {{ id: string, messages: string[], agent?: string, arguments?: Record<string, unknown>,
 *   env?: Record<string, unknown>, asOf?: string, history?: unknown[], approvals?: "approve" | "deny", script?: unknown[], expect: Expect }} Case
 *   `approvals`: what the eval does with a call asking for approval (absent: the case ends waiting)
 *   `history`: an earlier conversation the case's thread starts from (`POST /threads`' `history`: weft checks it)
 * @typedef {(ctx: import("./run-case.mjs").Transcript & { case: Case, candidate: Candidate }) =>
 *   { pass: boolean, detail?: string } | Promise<{ pass: boolean, detail?: string }>} CustomScorer
 * @typedef {{ name: string, dir: string, threshold: number, concurrency: number, timeoutMs: number,
 *   runtime: { project?: string, config?: string, token?: string, vars: Record<string, string> },
 *   judge?: Candidate, candidates: Candidate[], cases: Case[], scorers: Record<string, CustomScorer>,
 *   leftOut: Array<{ reason: string, count: number }> }} Suite
 */

/**
 * Loads and checks the suite in `dir`.
 * @param {string} dir
 * @returns {Promise<Suite>}
 * @throws SuiteError
 */
export async function loadSuite(dir) {
  const folder = resolve(dir);
  if (!existsSync(folder)) throw new SuiteError(dir, "no such folder");
  const mjs = join(folder, "suite.mjs");
  const json = join(folder, "suite.json");
  /** @type {any} */
  let raw;
  let file;
  if (existsSync(mjs)) {
    file = "suite.mjs";
    const mod = await import(pathToFileURL(mjs).href);
    raw = typeof mod.default === "function" ? await mod.default() : mod.default;
  } else if (existsSync(json)) {
    file = "suite.json";
    raw = parseJson(json, "suite.json");
  } else throw new SuiteError(dir, "no suite.mjs or suite.json in this folder (see docs/evals.md)");
  if (!isObject(raw)) throw new SuiteError(file, "the suite must be an object");
  const at = (/** @type {string} */ p) => `${file}: ${p}`;
  const cases = Array.isArray(raw.cases) ? [...raw.cases] : raw.cases === undefined ? [] : fail(at("cases"), "expected a list");
  const caseDir = join(folder, "cases");
  /** @type {string[]} */
  const whereOf = cases.map((_, i) => at(`cases[${i}]`));
  if (existsSync(caseDir)) {
    for (const f of readdirSync(caseDir).filter((f) => f.endsWith(".json")).sort()) {
      const v = parseJson(join(caseDir, f), `cases/${f}`);
      const list = Array.isArray(v) ? v : [v];
      list.forEach((c, i) => {
        cases.push(c);
        whereOf.push(Array.isArray(v) ? `cases/${f}: [${i}]` : `cases/${f}`);
      });
    }
  }
  const candidates = Array.isArray(raw.candidates) && raw.candidates.length > 0 ? raw.candidates : fail(at("candidates"), "expected a non-empty list of candidates");
  const names = new Set();
  candidates.forEach((/** @type {any} */ c, /** @type {number} */ i) => {
    checkCandidate(c, at(`candidates[${i}]`));
    if (c.env) c.env = fromShell(c.env, at(`candidates[${i}].env`));
    if (names.has(c.name)) fail(at(`candidates[${i}].name`), `"${c.name}" is listed twice`);
    names.add(c.name);
  });
  if (raw.judge !== undefined) {
    checkCandidate({ name: "judge", ...raw.judge }, at("judge"));
    if (raw.judge.env) raw.judge.env = fromShell(raw.judge.env, at("judge.env"));
  }
  const scorers = raw.scorers ?? {};
  if (!isObject(scorers) || !Object.values(scorers).every((s) => typeof s === "function")) fail(at("scorers"), "expected an object of functions (suite.mjs only)");
  const ids = new Set();
  cases.forEach((c, i) => {
    checkCase(c, whereOf[i] ?? "", scorers, raw.judge !== undefined);
    if (isObject(c.env)) c.env = fromShell(c.env, `${whereOf[i] ?? ""}.env`);
    if (ids.has(c.id)) fail(`${whereOf[i] ?? ""}.id`, `"${c.id}" is used by another case`);
    ids.add(c.id);
  });
  if (cases.length === 0) fail(at("cases"), "the suite has no cases");
  const threshold = raw.threshold ?? 1;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) fail(at("threshold"), "expected a pass rate from 0 to 1");
  const leftOut = raw.leftOut ?? [];
  if (!Array.isArray(leftOut) || !leftOut.every((l) => isObject(l) && typeof l.reason === "string" && Number.isInteger(l.count))) fail(at("leftOut"), "expected [{ reason, count }]");
  const runtime = raw.runtime ?? {};
  if (!isObject(runtime)) fail(at("runtime"), "expected an object");
  return {
    name: typeof raw.name === "string" ? raw.name : basename(folder),
    dir: folder,
    threshold,
    concurrency: positive(raw.concurrency ?? 4, at("concurrency")),
    timeoutMs: positive(raw.timeoutMs ?? 60_000, at("timeoutMs")),
    runtime: { ...(runtime.project ? { project: resolve(folder, runtime.project) } : {}), ...(runtime.config ? { config: resolve(folder, runtime.config) } : {}), ...(runtime.token ? { token: runtime.token } : {}), vars: runtime.vars ?? {} },
    ...(raw.judge ? { judge: { name: "judge", ...raw.judge } } : {}),
    candidates,
    cases: cases.map((c) => ({ ...c, messages: c.messages.map((/** @type {any} */ m) => (typeof m === "string" ? m : m.content)) })),
    scorers,
    leftOut,
  };
}

/** @param {any} c @param {string} where */
function checkCandidate(c, where) {
  if (!isObject(c)) fail(where, "expected an object");
  if (typeof c.name !== "string" || !/^[\w.-]+$/.test(c.name)) fail(`${where}.name`, "expected a name of letters, digits, _ . -");
  for (const k of ["agent", "model"]) if (c[k] !== undefined && typeof c[k] !== "string") fail(`${where}.${k}`, "expected a string");
  for (const k of ["env", "arguments"]) if (c[k] !== undefined && !isObject(c[k])) fail(`${where}.${k}`, "expected an object");
  if (c.price !== undefined && !(isObject(c.price) && typeof c.price.input === "number" && typeof c.price.output === "number")) fail(`${where}.price`, "expected { input, output } in dollars per million tokens");
  const known = ["name", "agent", "model", "env", "arguments", "price"];
  for (const k of Object.keys(c)) if (!known.includes(k)) fail(`${where}.${k}`, `unknown field; the fields are ${known.join(", ")}`);
}

/** @param {any} c @param {string} where @param {Record<string, unknown>} scorers @param {boolean} hasJudge */
function checkCase(c, where, scorers, hasJudge) {
  if (!isObject(c)) fail(where, "expected an object");
  if (typeof c.id !== "string" || c.id === "") fail(`${where}.id`, "expected a non-empty string");
  if (!Array.isArray(c.messages) || c.messages.length === 0) fail(`${where}.messages`, "expected a non-empty list of user messages");
  c.messages.forEach((/** @type {any} */ m, /** @type {number} */ i) => {
    if (typeof m !== "string" && !(isObject(m) && typeof m.content === "string")) fail(`${where}.messages[${i}]`, 'expected a string or { "content": string }');
  });
  if (c.approvals !== undefined && c.approvals !== "approve" && c.approvals !== "deny") fail(`${where}.approvals`, 'expected "approve" or "deny"');
  if (c.history !== undefined && !Array.isArray(c.history)) fail(`${where}.history`, "expected a list of messages (role, content, toolCalls, toolCallId)");
  if (c.asOf !== undefined && (typeof c.asOf !== "string" || Number.isNaN(Date.parse(c.asOf)) || !/(Z|[+-]\d\d:\d\d)$/.test(c.asOf))) fail(`${where}.asOf`, "expected an ISO-8601 instant with an offset");
  if (c.script !== undefined && !Array.isArray(c.script)) fail(`${where}.script`, "expected a list of scripted model steps");
  const e = c.expect;
  if (!isObject(e)) fail(`${where}.expect`, "expected an object of expectations");
  const known = ["toolCalls", "trajectory", "answer", "judge", "custom"];
  for (const k of Object.keys(e)) if (!known.includes(k)) fail(`${where}.expect.${k}`, `unknown expectation; they are ${known.join(", ")}`);
  if (Object.keys(e).length === 0) fail(`${where}.expect`, "a case needs at least one expectation");
  if (e.toolCalls !== undefined) {
    if (!Array.isArray(e.toolCalls)) fail(`${where}.expect.toolCalls`, "expected a list of { name, arguments }");
    e.toolCalls.forEach((/** @type {any} */ t, /** @type {number} */ i) => {
      const bad = !isObject(t) || typeof t.name !== "string" || (t.arguments !== undefined && !isObject(t.arguments)) || (t.acceptable !== undefined && !isObject(t.acceptable)) || (t.arguments !== undefined && t.acceptable !== undefined);
      if (bad) fail(`${where}.expect.toolCalls[${i}]`, "expected { name, arguments? } or { name, acceptable } (BFCL's lists of acceptable values per argument)");
    });
  }
  if (e.trajectory !== undefined && !(Array.isArray(e.trajectory) && e.trajectory.every((/** @type {unknown} */ n) => typeof n === "string"))) fail(`${where}.expect.trajectory`, "expected a list of tool names");
  if (e.answer !== undefined) {
    const a = e.answer;
    if (!isObject(a)) fail(`${where}.expect.answer`, "expected { contains?, regex?, schema? }");
    if (a.contains !== undefined && typeof a.contains !== "string" && !(Array.isArray(a.contains) && a.contains.every((/** @type {unknown} */ s) => typeof s === "string"))) fail(`${where}.expect.answer.contains`, "expected a string or a list of strings");
    if (a.regex !== undefined) {
      try {
        new RegExp(a.regex);
      } catch (err) {
        fail(`${where}.expect.answer.regex`, `not a regular expression (${/** @type {Error} */ (err).message})`);
      }
    }
    if (a.schema !== undefined && !isObject(a.schema)) fail(`${where}.expect.answer.schema`, "expected a JSON Schema object");
  }
  if (e.judge !== undefined) {
    if (!isObject(e.judge) || typeof e.judge.rubric !== "string") fail(`${where}.expect.judge`, "expected { rubric: string }");
    if (!hasJudge) fail(`${where}.expect.judge`, "the suite names no judge (suite.judge: { model, env? })");
  }
  if (e.custom !== undefined) {
    if (!Array.isArray(e.custom)) fail(`${where}.expect.custom`, "expected a list of scorer names");
    e.custom.forEach((/** @type {any} */ n, /** @type {number} */ i) => {
      if (typeof scorers[n] !== "function") fail(`${where}.expect.custom[${i}]`, `no scorer "${n}" in the suite's scorers`);
    });
  }
}

/**
 * Env values as POST /threads takes them, with `{ "fromEnv": "NAME" }` read from the runner's own
 * environment (a secret unless `type` says `text`), so a suite file never holds a key.
 * @param {Record<string, unknown>} env @param {string} where
 */
function fromShell(env, where) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, v] of Object.entries(env)) {
    if (isObject(v) && "fromEnv" in v) {
      const value = typeof v.fromEnv === "string" ? process.env[v.fromEnv] : undefined;
      if (value === undefined || value === "") fail(`${where}.${name}`, `fromEnv ${JSON.stringify(v.fromEnv)} is not set in this shell's environment`);
      out[name] = { value, type: v.type === "text" ? "text" : "secret" };
    } else out[name] = v;
  }
  return out;
}

/** @param {string} where @param {string} problem @returns {never} */
function fail(where, problem) {
  throw new SuiteError(where, problem);
}

/** @param {unknown} v @returns {v is Record<string, any>} */
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** @param {unknown} v @param {string} where */
function positive(v, where) {
  if (!Number.isInteger(v) || /** @type {number} */ (v) < 1) fail(where, "expected a whole number above 0");
  return /** @type {number} */ (v);
}

/** @param {string} path @param {string} where */
function parseJson(path, where) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new SuiteError(where, `not JSON (${/** @type {Error} */ (err).message})`);
  }
}
