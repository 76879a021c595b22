// @ts-check
/**
 * The scorers: each judges one expectation of a case against a transcript and answers
 * `{ scorer, pass, detail }` (`detail` says what differs). Tool calls are compared the way the
 * bfcl harness judges a call (scripts/bfcl/reference.mjs, one source for the rule): the
 * arguments are read through the tool's JSON Schema (Ajv, draft 2020-12) with every valid
 * `default` applied, then compared by deep equality, so an argument left out and the same
 * argument given its default are the same call. Arguments the schema refuses are compared as sent.
 * An expected call may list `acceptable` values per argument instead (BFCL's `possible_answer`
 * form): then the arguments as sent are judged the way BFCL judges them (scripts/bfcl/answers.mjs).
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { createReference } from "../bfcl/reference.mjs";
import { show } from "../bfcl/check.mjs";
import { answerMismatch } from "../bfcl/answers.mjs";

/** @typedef {{ scorer: string, pass: boolean, detail?: string }} Score */

const reference = createReference();
/** @type {Map<string, ReturnType<typeof reference.compile>["check"]>} */
const compiled = new Map();

/**
 * The arguments of a call to `name` as its schema reads them: valid ones with defaults applied,
 * others as given.
 * @param {Map<string, Record<string, unknown>>} tools name -> input JSON Schema
 * @param {string} name @param {unknown} args
 */
export function readArguments(tools, name, args) {
  const schema = tools.get(name);
  if (!schema) return args;
  const key = JSON.stringify(schema);
  let check = compiled.get(key);
  if (!check) {
    check = compileOrAsSent(schema);
    compiled.set(key, check);
  }
  const verdict = check(args);
  return verdict.ok ? verdict.value : args;
}

/**
 * The reference check of `schema`, read as draft 2020-12 whatever draft its `$schema` names (the
 * MCP SDK's servers name draft-07, which Ajv2020 does not load, and weft reads them as 2020-12
 * too); a schema that still does not compile passes every argument on as sent, instead of
 * stopping the whole eval.
 * @param {Record<string, unknown>} schema
 */
function compileOrAsSent(schema) {
  const { $schema: _draft, ...rest } = schema;
  try {
    return reference.compile(rest).check;
  } catch {
    return () => /** @type {import("../bfcl/reference.mjs").Verdict} */ ({ ok: false, paths: [], messages: [] });
  }
}

/**
 * Exact tool-call match: the calls the model asked for, over all the case's turns, are exactly
 * the expected ones (name and arguments), in any order (parallel calls have none).
 * @param {import("./suite.mjs").ExpectedCall[]} expected
 * @param {import("./run-case.mjs").Transcript} t
 * @returns {Score}
 */
export function scoreToolCalls(expected, t) {
  const got = t.requested.map((c) => ({ name: c.name, arguments: readArguments(t.tools, c.name, c.arguments), sent: c.arguments }));
  const want = expected.map((c) => ({ name: c.name, arguments: c.acceptable ?? readArguments(t.tools, c.name, c.arguments ?? {}), acceptable: c.acceptable }));
  const left = [...got];
  const missing = [];
  for (const w of want) {
    const same = (/** @type {(typeof got)[number]} */ g) => (w.acceptable ? answerMismatch(w.acceptable, g.sent) === null : isDeepStrictEqual(g.arguments, w.arguments));
    const i = left.findIndex((g) => g.name === w.name && same(g));
    if (i === -1) missing.push(w);
    else left.splice(i, 1);
  }
  const pass = missing.length === 0 && left.length === 0;
  // With acceptable lists, say why the closest call (the first of that name) is not one of them.
  const why = missing
    .filter((w) => w.acceptable)
    .map((w) => {
      const g = left.find((x) => x.name === w.name);
      return g && w.acceptable ? `; ${w.name}: ${answerMismatch(w.acceptable, g.sent)}` : "";
    })
    .join("");
  return {
    scorer: "toolCalls",
    pass,
    ...(pass ? {} : { detail: `expected ${callsText(want)}; got ${callsText(got)}${missing.length ? `; missing ${callsText(missing)}` : ""}${left.length ? `; unexpected ${callsText(left)}` : ""}${why}` }),
  };
}

/** @param {Array<{ name: string, arguments: unknown }>} calls */
function callsText(calls) {
  return calls.length === 0 ? "no calls" : calls.map((c) => `${c.name}(${show(c.arguments)})`).join(", ");
}

/**
 * Trajectory match: the names of the calls the model asked for, in order, are exactly `names`.
 * @param {string[]} names @param {import("./run-case.mjs").Transcript} t @returns {Score}
 */
export function scoreTrajectory(names, t) {
  const got = t.requested.map((c) => c.name);
  const pass = isDeepStrictEqual(got, names);
  return { scorer: "trajectory", pass, ...(pass ? {} : { detail: `expected [${names.join(", ")}]; got [${got.join(", ")}]` }) };
}

/**
 * Final-answer checks on the last assistant text: it contains every `contains` string, matches
 * `regex`, and (with `schema`) is JSON, alone or in a fenced block, that the schema accepts.
 * @param {{ contains?: string | string[], regex?: string, schema?: Record<string, unknown> }} a
 * @param {import("./run-case.mjs").Transcript} t @returns {Score[]}
 */
export function scoreAnswer(a, t) {
  const out = [];
  const text = t.text;
  if (a.contains !== undefined) {
    const absent = (Array.isArray(a.contains) ? a.contains : [a.contains]).filter((s) => !text.includes(s));
    out.push({ scorer: "answer.contains", pass: absent.length === 0, ...(absent.length ? { detail: `missing ${show(absent)} in ${show(text)}` } : {}) });
  }
  if (a.regex !== undefined) {
    const pass = new RegExp(a.regex).test(text);
    out.push({ scorer: "answer.regex", pass, ...(pass ? {} : { detail: `/${a.regex}/ does not match ${show(text)}` }) });
  }
  if (a.schema !== undefined) {
    const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1];
    let value;
    let detail;
    try {
      value = JSON.parse(fenced ?? text);
    } catch {
      detail = `the answer is not JSON: ${show(text)}`;
    }
    if (!detail) {
      const verdict = reference.compile(a.schema).check(value);
      if (!verdict.ok) detail = `the schema refuses the answer: ${verdict.messages.join("; ")}`;
    }
    out.push({ scorer: "answer.schema", pass: !detail, ...(detail ? { detail } : {}) });
  }
  return out;
}

/**
 * Runs an author's scorer; a throw is a failure with its message.
 * @param {string} name @param {import("./suite.mjs").CustomScorer} fn @param {any} ctx @returns {Promise<Score>}
 */
export async function scoreCustom(name, fn, ctx) {
  try {
    const r = await fn(ctx);
    if (r === null || typeof r !== "object" || typeof r.pass !== "boolean") return { scorer: name, pass: false, detail: "the scorer must return { pass: boolean, detail?: string }" };
    return { scorer: name, pass: r.pass, ...(r.detail ? { detail: String(r.detail) } : {}) };
  } catch (err) {
    return { scorer: name, pass: false, detail: `the scorer threw: ${err instanceof Error ? err.message : String(err)}` };
  }
}
