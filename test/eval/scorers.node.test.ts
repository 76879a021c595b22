/**
 * The eval runner's pure parts: the scorers, the suite reader, the thread export and the report
 * (scripts/eval/). The runs against a live weft are in test/e2e/eval.node.test.ts.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readArguments, scoreAnswer, scoreCustom, scoreToolCalls, scoreTrajectory } from "../../scripts/eval/scorers.mjs";
import { parseVerdict } from "../../scripts/eval/judge.mjs";
import { historyOf, threadCases } from "../../scripts/eval/from-threads.mjs";
import { MISSING_RESULT } from "../../src/models/history.js";
import { threadBody } from "../../scripts/eval/run-case.mjs";
import { loadSuite } from "../../scripts/eval/suite.mjs";
import { countLine, htmlReport, summaryTable, underThreshold } from "../../scripts/eval/report.mjs";
import { quantile } from "../../scripts/eval/runner.mjs";
import { answerMismatch, expectedArguments } from "../../scripts/bfcl/answers.mjs";
import { REPO_ROOT } from "../../scripts/lib/dev-server.mjs";

const SCHEMA = { type: "object", properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"], default: "c" } }, required: ["city"] };

function transcript(requested: Array<{ name: string; arguments: unknown }>, text = "") {
  return {
    threadId: "t",
    status: "completed" as const,
    requested: requested.map((c, i) => ({ id: `c${i}`, name: c.name, raw: JSON.stringify(c.arguments), arguments: c.arguments })),
    calls: [],
    messages: [],
    text,
    tools: new Map<string, Record<string, unknown>>([["weather", SCHEMA]]),
    usage: { input: 0, output: 0, estimated: 0, costUsd: null },
    turnMs: [],
  };
}

describe("exact tool-call match", () => {
  it("reads arguments through the tool's schema: a left-out argument equals its default", () => {
    const t = transcript([{ name: "weather", arguments: { city: "Paris", unit: "c" } }]);
    expect(scoreToolCalls([{ name: "weather", arguments: { city: "Paris" } }], t)).toEqual({ scorer: "toolCalls", pass: true });
    expect(readArguments(t.tools, "weather", { city: "Oslo" })).toEqual({ city: "Oslo", unit: "c" });
  });

  it("fails a wrong argument, a missing call and an extra call, saying which", () => {
    const wrong = scoreToolCalls([{ name: "weather", arguments: { city: "Paris" } }], transcript([{ name: "weather", arguments: { city: "Rome" } }]));
    expect(wrong.pass).toBe(false);
    expect(wrong.detail).toContain('missing weather({"city":"Paris","unit":"c"})');
    expect(wrong.detail).toContain('unexpected weather({"city":"Rome","unit":"c"})');
    expect(scoreToolCalls([], transcript([{ name: "weather", arguments: { city: "Rome" } }])).pass).toBe(false);
    expect(scoreToolCalls([{ name: "weather", arguments: { city: "Rome" } }], transcript([])).detail).toContain("got no calls");
  });

  it("takes parallel calls in any order, and compares arguments the schema refuses as sent", () => {
    const t = transcript([
      { name: "weather", arguments: { city: "B" } },
      { name: "weather", arguments: { city: "A", unit: "k" } },
    ]);
    expect(scoreToolCalls([{ name: "weather", arguments: { city: "A", unit: "k" } }, { name: "weather", arguments: { city: "B" } }], t).pass).toBe(true);
    expect(scoreToolCalls([{ name: "weather", arguments: { city: "A", unit: "c" } }, { name: "weather", arguments: { city: "B" } }], t).pass).toBe(false);
  });

  it("reads a remote MCP tool's schema that names draft-07 (as the MCP SDK's servers do), instead of throwing", () => {
    const draft7 = { type: "object", properties: { text: { type: "string" }, loud: { type: "boolean", default: false } }, required: ["text"], $schema: "http://json-schema.org/draft-07/schema#" };
    const tools = new Map<string, Record<string, unknown>>([["toys__echo", draft7]]);
    expect(readArguments(tools, "toys__echo", { text: "hi" })).toEqual({ text: "hi", loud: false });
    // A schema no draft compiles: its arguments are compared as sent.
    const broken = new Map<string, Record<string, unknown>>([["bad", { type: "object", properties: { a: { $ref: "#/nowhere" } } }]]);
    expect(readArguments(broken, "bad", { a: 1 })).toEqual({ a: 1 });
  });
});

describe("exact tool-call match, BFCL's way (acceptable values per argument)", () => {
  const acceptable = { city: ["Paris", "Paris, France"], unit: ["c", ""], opts: [{ days: [1, 2], hourly: ["", false] }] };
  const t = (args: unknown) => transcript([{ name: "weather", arguments: args }]);

  it("any listed value passes; an argument listing \"\" may be left out; nested objects nest their lists", () => {
    expect(scoreToolCalls([{ name: "weather", acceptable }], t({ city: "Paris, France", opts: { days: 2 } })).pass).toBe(true);
    expect(scoreToolCalls([{ name: "weather", acceptable }], t({ city: "Paris", unit: "c", opts: { days: 1, hourly: false } })).pass).toBe(true);
    expect(answerMismatch(acceptable, expectedArguments(acceptable))).toBeNull();
  });

  it("a value not listed, a missing required one, an extra one or a wrong nested one fails, saying which", () => {
    const judged = (args: unknown) => scoreToolCalls([{ name: "weather", acceptable }], t(args)).detail?.split("; ").at(-1);
    expect(judged({ city: "Lyon", opts: { days: 1 } })).toBe('weather: city: "Lyon" is none of ["Paris","Paris, France"]');
    expect(judged({ opts: { days: 1 } })).toBe('weather: city: missing (acceptable: ["Paris","Paris, France"])');
    expect(judged({ city: "Paris", opts: { days: 1 }, extra: 1 })).toBe("weather: extra: not an argument of the answer");
    expect(judged({ city: "Paris", opts: { days: 3 } })).toBe('weather: opts: {"days":3} is none of [{"days":[1,2],"hourly":["",false]}]');
    expect(answerMismatch({ xs: [[1, 2]] }, { xs: [2, 1] })).toBe("xs: [2,1] is none of [[1,2]]");
  });
});

describe("trajectory, answer and custom scorers", () => {
  it("trajectory is the names in order", () => {
    const t = transcript([{ name: "a", arguments: {} }, { name: "b", arguments: {} }]);
    expect(scoreTrajectory(["a", "b"], t).pass).toBe(true);
    expect(scoreTrajectory(["b", "a"], t)).toEqual({ scorer: "trajectory", pass: false, detail: "expected [b, a]; got [a, b]" });
  });

  it("answer: contains, regex, and JSON (alone or fenced) against a schema", () => {
    const t = transcript([], 'Here:\n```json\n{"n": 3}\n```');
    const schema = { type: "object", required: ["n"], properties: { n: { type: "integer" } } };
    expect(scoreAnswer({ contains: ["Here"], regex: "^Here", schema }, t).map((s) => s.pass)).toEqual([true, true, true]);
    const bad = scoreAnswer({ contains: "There", regex: "\\d{4}", schema: { ...schema, properties: { n: { type: "string" } } } }, t);
    expect(bad.map((s) => s.pass)).toEqual([false, false, false]);
    expect(bad[2]!.detail).toContain("the schema refuses the answer");
    expect(scoreAnswer({ schema }, transcript([], "no json")).map((s) => s.detail)).toEqual(['the answer is not JSON: "no json"']);
  });

  it("a custom scorer's verdict counts; a throw or a bad return fails the case", async () => {
    const t = transcript([]);
    expect(await scoreCustom("mine", () => ({ pass: true }), t)).toEqual({ scorer: "mine", pass: true });
    expect(await scoreCustom("mine", () => { throw new Error("boom"); }, t)).toEqual({ scorer: "mine", pass: false, detail: "the scorer threw: boom" });
    expect((await scoreCustom("mine", (() => "yes") as never, t)).pass).toBe(false);
  });

  it("the judge's verdict is read from JSON alone or inside text; anything else is none", () => {
    expect(parseVerdict('{"pass": false, "reason": "rude"}')).toEqual({ pass: false, reason: "rude" });
    expect(parseVerdict('Verdict: {"pass": true, "reason": "ok"} done')).toEqual({ pass: true, reason: "ok" });
    expect(parseVerdict("PASS")).toBeNull();
  });

  it("quantiles are nearest-rank", () => {
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
    expect(quantile([], 0.5)).toBeNull();
  });
});

describe("cases and candidates", () => {
  it("a candidate's settings win over the case's env; its model is WEFT_MODEL; only a scripted candidate plays the script; every thread is a dry run", () => {
    const kase = { id: "x", messages: ["hi"], env: { A: "case", B: "case" }, asOf: "2026-01-01T00:00:00Z", script: [{ text: "s" }], expect: { trajectory: [] } };
    expect(threadBody(kase, { name: "s", agent: "example", env: { B: "cand" } })).toEqual({ agent: "example", env: { A: "case", B: "cand" }, dryRun: true, asOf: "2026-01-01T00:00:00Z", script: [{ text: "s" }] });
    expect(threadBody(kase, { name: "m", model: "openai:gpt-4.1-mini" })).toEqual({ env: { A: "case", B: "case", WEFT_MODEL: { value: "openai:gpt-4.1-mini", type: "text" } }, dryRun: true, asOf: "2026-01-01T00:00:00Z" });
  });

  it("a stored thread becomes one case per user message, pinned at its time, expecting that turn's calls", () => {
    const at = Date.parse("2026-02-03T04:05:06Z");
    const cases = threadCases({ threadId: "th", agentId: "example", arguments: {} }, [
      { id: 1, role: "user", content: "first", createdAt: at, silent: false },
      { id: 2, role: "assistant", content: "", toolCalls: [{ id: "a", name: "lookup_order", arguments: '{"orderId":"A-1"}' }], createdAt: at + 1, silent: false },
      { id: 3, role: "assistant", content: "nested", toolCalls: [{ id: "n", name: "inner", arguments: "{}" }], depth: 1, createdAt: at + 2, silent: false },
      { id: 4, role: "tool", content: "{}", toolCallId: "a", createdAt: at + 2, silent: false },
      { id: 5, role: "assistant", content: "done", createdAt: at + 3, silent: false },
      { id: 6, role: "user", content: "second", createdAt: at + 5000, silent: false },
      { id: 7, role: "assistant", content: "ok", createdAt: at + 5001, silent: false },
    ]);
    expect(cases).toEqual([
      { id: "th#1", messages: ["first"], agent: "example", asOf: "2026-02-03T04:05:06.000Z", expect: { toolCalls: [{ name: "lookup_order", arguments: { orderId: "A-1" } }], trajectory: ["lookup_order"] } },
      {
        id: "th#6",
        messages: ["second"],
        agent: "example",
        history: [
          { role: "user", content: "first" },
          { role: "assistant", content: "", toolCalls: [{ id: "a", name: "lookup_order", arguments: '{"orderId":"A-1"}' }] },
          { role: "tool", toolCallId: "a", name: "lookup_order", content: "{}" },
          { role: "assistant", content: "done" },
        ],
        asOf: "2026-02-03T04:05:11.000Z",
        expect: { toolCalls: [], trajectory: [] },
      },
    ]);
  });

  it("gives each case the conversation as its model saw it: results after their calls, none missing, ids unique", () => {
    const { history } = historyOf([
      { id: 1, role: "user", content: "q", silent: false },
      { id: 2, role: "system", content: "note", silent: true },
      { id: 3, role: "assistant", content: "", toolCalls: [{ id: "x", name: "a", arguments: "{}" }, { id: "x", name: "b", arguments: "{}" }, { id: "s", name: "web_search", arguments: "{}", providerExecuted: true }] },
      { id: 4, role: "tool", toolCallId: "x", name: "b", content: "rb" },
      { id: 5, role: "tool", toolCallId: "gone", name: "c", content: "rc" },
    ]);
    expect(history).toEqual([
      { role: "user", content: "q" },
      { role: "system", content: "note" },
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "a", arguments: "{}" }, { id: "x~2", name: "b", arguments: "{}" }] },
      // The n-th call with an id takes the n-th result with it, as in the model's request.
      { role: "tool", toolCallId: "x", name: "a", content: "rb" },
      // The text weft's own request gives such a call, marked as an error (the export must not drift from it).
      { role: "tool", toolCallId: "x~2", name: "b", content: MISSING_RESULT, isError: true },
      { role: "user", content: "[result of an earlier call to c]: rc" },
    ]);
    expect(historyOf([])).toEqual({});
  });
});

describe("suite folders", () => {
  function folder(files: Record<string, unknown>): string {
    const dir = mkdtempSync(join(tmpdir(), "weft-suite-"));
    for (const [name, value] of Object.entries(files)) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), typeof value === "string" ? value : JSON.stringify(value));
    }
    return dir;
  }
  const one = { id: "a", messages: ["hi"], expect: { answer: { contains: "hi" } } };

  it("reads suite.json with cases/*.json", async () => {
    const suite = await loadSuite(folder({ "suite.json": { candidates: [{ name: "s" }], cases: [one] }, "cases/more.json": [{ ...one, id: "b", messages: [{ content: "yo" }] }] }));
    expect(suite.cases.map((c) => [c.id, c.messages])).toEqual([["a", ["hi"]], ["b", ["yo"]]]);
    expect(suite).toMatchObject({ threshold: 1, concurrency: 4, leftOut: [] });
  });

  it("names the file and the path of every mistake", async () => {
    const bad = async (files: Record<string, unknown>) => (await loadSuite(folder(files)).catch((e: Error) => e)) as Error;
    expect((await bad({})).message).toMatch(/no suite.mjs or suite.json/);
    expect((await bad({ "suite.json": { candidates: [], cases: [one] } })).message).toBe("suite.json: candidates: expected a non-empty list of candidates");
    expect((await bad({ "suite.json": { candidates: [{ name: "s" }], cases: [{ ...one, expect: { answr: {} } }] } })).message).toMatch(/^suite\.json: cases\[0\]\.expect\.answr: unknown expectation/);
    expect((await bad({ "suite.json": { candidates: [{ name: "s" }] }, "cases/x.json": { ...one, asOf: "yesterday" } })).message).toBe("cases/x.json.asOf: expected an ISO-8601 instant with an offset");
    expect((await bad({ "suite.json": { candidates: [{ name: "s" }], cases: [{ ...one, expect: { judge: { rubric: "r" } } }] } })).message).toMatch(/names no judge/);
    expect((await bad({ "suite.json": { candidates: [{ name: "s" }], cases: [{ ...one, expect: { custom: ["nope"] } }] } })).message).toMatch(/no scorer "nope"/);
    expect((await bad({ "suite.json": { candidates: [{ name: "s" }], cases: [one, one] } })).message).toMatch(/"a" is used by another case/);
    expect((await bad({ "suite.json": { candidates: [{ name: "s", env: { K: { fromEnv: "WEFT_EVAL_UNSET_NAME" } } }], cases: [one] } })).message).toBe(
      'suite.json: candidates[0].env.K: fromEnv "WEFT_EVAL_UNSET_NAME" is not set in this shell\'s environment',
    );
  });

  it("reads { fromEnv } env values from the runner's environment, as secrets unless typed text", async () => {
    process.env.WEFT_EVAL_TEST_KEY = "sk-from-the-shell";
    const suite = await loadSuite(folder({ "suite.json": { candidates: [{ name: "s", env: { KEY: { fromEnv: "WEFT_EVAL_TEST_KEY" }, URL: { fromEnv: "WEFT_EVAL_TEST_KEY", type: "text" }, PLAIN: "p" } }], cases: [one] } }));
    expect(suite.candidates[0]!.env).toEqual({ KEY: { value: "sk-from-the-shell", type: "secret" }, URL: { value: "sk-from-the-shell", type: "text" }, PLAIN: "p" });
  });
});

describe("weft eval refuses a bad suite or usage before it starts anything", () => {
  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(REPO_ROOT, "bin/weft.mjs"), "eval", ...args], { cwd: REPO_ROOT }, (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }));
    });

  it("exit code 2 naming the file and path; --compare must name two candidates", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-suite-"));
    writeFileSync(join(dir, "suite.json"), JSON.stringify({ candidates: [{ name: "s", modle: "x" }], cases: [] }));
    expect(await cli([dir])).toEqual({ code: 2, stderr: "weft eval: suite.json: candidates[0].modle: unknown field; the fields are name, agent, model, env, arguments, price\n" });
    writeFileSync(join(dir, "suite.json"), JSON.stringify({ candidates: [{ name: "s" }], cases: [{ id: "a", messages: ["hi"], expect: { trajectory: [] } }] }));
    expect(await cli([dir, "--compare", "s,t"])).toEqual({ code: 2, stderr: "weft eval: --compare: expected two candidate names of the suite, got s,t\n" });
    expect((await cli(["--threshold", "2", dir])).code).toBe(2);
  });
});

describe("the report", () => {
  const result = (passed: number[]) => ({
    suite: "s",
    cases: 2,
    threshold: 1,
    leftOut: [],
    candidates: passed.map((p, i) => ({
      name: `c${i}`,
      model: "scripted",
      results: [0, 1].map((n) => ({ caseId: `k${n}`, pass: n < p, scores: n < p ? [] : [{ scorer: "toolCalls", pass: false, detail: "expected x <b>" }], threadId: null, status: "completed", text: "t", requested: [], usage: { input: 1, output: 2, estimated: 0, costUsd: null }, turnMs: [5] })),
      passed: p,
      total: 2,
      exact: [p, 2] as [number, number],
      tokens: { input: 2, output: 4, estimated: i },
      cost: i === 0 ? null : 0.25,
      p50Ms: 5,
      p95Ms: 5,
    })),
  });

  it("marks tokens weft estimated, as `weft usage` counts them, and prints each known cost", () => {
    const [, , first, second] = summaryTable(result([2, 1]));
    expect(first).toMatch(/^c0 .* 2\/4 +unknown /);
    expect(second).toMatch(/^c1 .* ~2\/4 +\$0\.2500 /);
  });

  it("counts exact tool calls per candidate and flags a candidate under the threshold", () => {
    const r = result([2, 1]);
    expect(countLine(r)).toBe("eval: 2 cases, candidate c0: 2/2 exact tool calls, candidate c1: 1/2 exact tool calls");
    expect(underThreshold(r, 1).map((c) => c.name)).toEqual(["c1"]);
    expect(underThreshold(r, 0.5)).toEqual([]);
  });

  it("the HTML puts two candidates side by side, marks the rows where they disagree and escapes what the model wrote", () => {
    const html = htmlReport(result([2, 1]));
    expect(html).toContain('<table id="comparison">');
    expect(html).toContain('<tr class="differ" data-case="k1">');
    expect(html).toContain('<tr class="" data-case="k0">');
    expect(html).toContain("expected x &#60;b&#62;");
    const alone = htmlReport(result([1]));
    expect(alone).toContain('<thead><tr><th>case</th><th>c0</th></tr></thead>');
    expect(alone).toContain('<tr class="" data-case="k1"><th scope="row">k1</th><td class="fail">');
  });
});
