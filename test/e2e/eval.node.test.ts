/**
 * `weft eval` against a live weft (the test worker under `wrangler dev`): the BFCL suite with the
 * scripted candidate playing the ground truth, then with one answer altered; two candidates (one
 * a model behind the fake OpenAI server) judged by an LLM judge through the fake OpenAI and
 * Anthropic servers, the HTML comparison opened in headless Chromium; and the export of stored
 * threads, which only their owner or an admin may make and which carries no secret.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/dev-server.mjs";
import { createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { evalClient } from "../../scripts/eval/client.mjs";
import { bfclSuite } from "../../evals/bfcl/suite.mjs";
import { API_KEYS } from "../keys.js";
import { findChromium } from "./chromium.js";
import { type DevServer, sharedWeft } from "./support.js";

let weft: DevServer;
const fake = createFakeProvider();
let fakeServer: { url: string; close(): Promise<void> };
const work = mkdtempSync(join(tmpdir(), "weft-eval-"));

beforeAll(async () => {
  // The run's shared server of the fixtures' config as it stands (tokens count): the cases here
  // make a few dozen threads, far under the per-user limit, so no server of its own is needed.
  [weft, fakeServer] = await Promise.all([sharedWeft("secured"), serveFakeProvider(fake)]);
}, 300_000);
afterAll(async () => {
  await fakeServer?.close();
  await weft?.stop();
});

/** Runs `weft eval ...args` from the repository; resolves with the exit code and both outputs. */
function weftEval(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, "bin/weft.mjs"), "eval", ...args], { cwd: REPO_ROOT, env: { ...process.env, WEFT_TOKEN: "", WEFT_URL: "", NO_COLOR: "1" }, maxBuffer: 32 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

/** Writes a suite folder (suite.mjs text or suite.json value) and answers its path. */
function suiteDir(name: string, suite: string | object): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, typeof suite === "string" ? "suite.mjs" : "suite.json"), typeof suite === "string" ? suite : JSON.stringify(suite, null, 2));
  return dir;
}

const BFCL_MODULE = JSON.stringify(join(REPO_ROOT, "evals/bfcl/suite.mjs"));

describe("weft eval on BFCL's shared data", () => {
  it("the scripted candidate playing the ground truth scores every case exact; with one answer altered, one case fewer", async () => {
    // The first 20 cases of one category of the shared data, so npm test stays short (each case is a
    // thread: 2-3 a second here); `npm run eval -- evals/bfcl` runs every case of every category.
    const n = 20;
    const build = `import { bfclSuite } from ${BFCL_MODULE};
export default async () => {
  const suite = await bfclSuite({ categories: ["parallel"] });
  return { ...suite, cases: suite.cases.slice(0, ${n}) };
};
`;
    const truth = await weftEval([suiteDir("bfcl-truth", build), "--url", weft.url]);
    expect(truth.stdout, truth.stderr).toContain(`eval: ${n} cases, candidate scripted: ${n}/${n} exact tool calls\n`);
    expect(truth.stdout).toContain("eval: left out: none");
    expect(truth.code).toBe(0);

    // The candidate's answer to the first case changes one argument; the expectation does not.
    const altered = `import { bfclSuite } from ${BFCL_MODULE};
export default async () => {
  const suite = await bfclSuite({ categories: ["parallel"] });
  suite.cases = suite.cases.slice(0, ${n});
  const call = suite.cases[0].script[0].toolCalls[0];
  const args = JSON.parse(call.arguments);
  const key = Object.keys(args)[0];
  call.arguments = JSON.stringify({ ...args, [key]: typeof args[key] === "string" ? args[key] + " (altered)" : 987654 });
  return suite;
};
`;
    const wrong = await weftEval([suiteDir("bfcl-altered", altered), "--url", weft.url]);
    expect(wrong.stdout, wrong.stderr).toContain(`eval: ${n} cases, candidate scripted: ${n - 1}/${n} exact tool calls\n`);
    const firstId = (await bfclSuite({ categories: ["parallel"] })).cases[0]!.id;
    expect(wrong.stdout).toMatch(new RegExp(`^FAIL scripted ${firstId} toolCalls: expected .*; missing .*; unexpected .*$`, "m"));
    expect(wrong.stdout).toContain(`eval: candidate scripted passed ${n - 1}/${n}, under the threshold 1`);
    expect(wrong.code).toBe(1);
  }, 600_000);
});

const WEATHER = { name: "weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const step = (city: string) => [
  { toolCalls: [{ id: "w", name: "weather", arguments: JSON.stringify({ city }) }] },
  { text: `Sunny in ${city}.` },
];
const CASES = ["Paris", "Rome"].map((city) => ({
  id: city.toLowerCase(),
  agent: "bfcl",
  arguments: { functions: [WEATHER] },
  messages: [`What is the weather in ${city}?`],
  script: step(city),
  expect: { toolCalls: [{ name: "weather", arguments: { city } }], answer: { contains: city }, judge: { rubric: `The answer names ${city}.` } },
}));

describe("two candidates, an LLM judge and the HTML report", () => {
  it("judges through the fake OpenAI server, and the comparison page shows both candidates side by side in Chromium", async () => {
    const modelKey = "eval-model-key";
    const judgeKey = "eval-judge-openai";
    // Candidates run in order at concurrency 1: the scripted one, then the model; it answers Rome wrongly.
    fake.script(modelKey, [...step("Paris"), ...step("Milan")].map((s) => ({ ...s, usage: { input: 100, output: 20 } })));
    const verdicts = [true, true, true, false].map((pass) => ({ text: JSON.stringify({ pass, reason: pass ? "names it" : "names the wrong city" }) }));
    fake.script(judgeKey, verdicts);
    const openai = (key: string) => ({ OPENAI_API_KEY: key, OPENAI_BASE_URL: { value: `${fakeServer.url}/v1`, type: "text" } });
    const dir = suiteDir("side", {
      name: "side",
      concurrency: 1,
      candidates: [{ name: "scripted" }, { name: "fake", model: "openai:gpt-4.1-mini", env: openai(modelKey), price: { input: 1, output: 4 } }],
      judge: { model: "openai:gpt-4.1-mini", env: openai(judgeKey) },
      cases: CASES,
    });
    const html = join(work, "report.html");
    const run = await weftEval([dir, "--url", weft.url, "--auth", API_KEYS.tester, "--html", html]);
    expect(run.stdout, run.stderr).toContain("eval: 2 cases, candidate scripted: 2/2 exact tool calls, candidate fake: 1/2 exact tool calls\n");
    // The scripted model reports no tokens: weft's estimates, marked "~", as `weft usage` counts them, at its free price.
    expect(run.stdout).toMatch(/^scripted +scripted +2\/2 +100\.0% +2\/2 +~[1-9]\d*\/[1-9]\d* +\$0\.0000 /m);
    // The model's tokens are counted, and its price gives a cost: 400 in and 80 out at $1 and $4 per million.
    expect(run.stdout).toMatch(/^fake +openai:gpt-4\.1-mini +1\/2 +50\.0% +1\/2 +400\/80 +\$0\.0007 /m);
    expect(run.stdout).toContain("FAIL fake rome judge: judge: names the wrong city");
    expect(run.stdout).toContain('FAIL fake rome toolCalls: expected weather({"city":"Rome"}); got weather({"city":"Milan"})');
    expect(run.code).toBe(1);

    // The judge read the rubric, what the user wrote and the candidate's answer, in OpenAI's wire format.
    const asked = (await (await fetch(`${fakeServer.url}/__fake/requests?key=${judgeKey}`)).json()) as Array<{ path: string; body: unknown }>;
    expect(asked).toHaveLength(4);
    expect(asked[0]!.path).toMatch(/^\/v1\/(chat\/completions|responses)$/);
    const last = JSON.stringify(asked[3]!.body);
    expect(last).toContain("The answer names Rome.");
    expect(last).toContain("Sunny in Milan.");

    const found = findChromium();
    if (found.path === null) return console.warn(`skipped the page check: ${found.reason}`);
    const browser = await chromium.launch({ executablePath: found.path, headless: true, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await page.goto(`file://${html}`);
      const shot = join(work, "report.png");
      await page.screenshot({ path: shot, fullPage: true });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe("PNG");
      const table = page.locator("table#comparison");
      await expect.poll(() => table.isVisible()).toBe(true);
      expect(await table.locator("thead th").allTextContents()).toEqual(["case", "scripted", "fake"]);
      expect(await table.locator("tbody tr").evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-case"), r.className, [...r.querySelectorAll("td b")].map((b) => b.textContent)]))).toEqual([
        ["paris", "", ["pass", "pass"]],
        ["rome", "differ", ["pass", "FAIL"]],
      ]);
      const box = await table.boundingBox();
      expect(box!.width).toBeGreaterThan(200);
    } finally {
      await browser.close();
    }
  }, 300_000);

  it("judges through the fake Anthropic server: a failing verdict fails the case", async () => {
    const judgeKey = "eval-judge-anthropic";
    fake.script(judgeKey, [{ text: '{"pass": false, "reason": "too curt"}' }]);
    const dir = suiteDir("anthropic-judge", {
      candidates: [{ name: "scripted" }],
      judge: { model: "anthropic:claude-sonnet-4-5", env: { ANTHROPIC_API_KEY: judgeKey, ANTHROPIC_BASE_URL: { value: `${fakeServer.url}/v1`, type: "text" } } },
      cases: [CASES[0]],
    });
    // As bob: no other file makes threads as him on the shared server (the fuzz, beside this file,
    // makes the tester's), so his list changes only by this run.
    const bob = evalClient(weft.url, API_KEYS.bob);
    const listed = async () => (await bob.listThreads({ limit: 200 })).threads.map((t) => t.threadId).sort();
    const before = await listed();
    const run = await weftEval([dir, "--url", weft.url, "--auth", API_KEYS.bob]);
    expect(run.stdout, run.stderr).toContain("FAIL scripted paris judge: judge: too curt");
    const asked = (await (await fetch(`${fakeServer.url}/__fake/requests?key=${judgeKey}`)).json()) as Array<{ path: string; body: unknown }>;
    expect(asked.map((r) => r.path)).toEqual(["/v1/messages"]);
    expect(JSON.stringify(asked[0]!.body)).toContain("The answer names Paris.");
    // Against a weft given by --url, the case's thread and the judge's are deleted once scored.
    expect(await listed()).toEqual(before);
    // With --keep-threads they stay; the fake has no verdict left for this run, so the judge fails, saying so.
    const kept = await weftEval([dir, "--url", weft.url, "--auth", API_KEYS.bob, "--keep-threads"]);
    expect(kept.stdout, kept.stderr).toContain("FAIL scripted paris judge: the judge did not answer");
    expect((await listed()).length).toBe(before.length + 2);
    expect(run.code).toBe(1);
  }, 300_000);
});

describe("weft eval --from-threads", () => {
  it("exports a stored thread for its owner and an admin, refuses anyone else, and carries no secret", async () => {
    const canary = "canary-eval-secret-51d0c7";
    const alice = evalClient(weft.url, API_KEYS.alice);
    const { threadId } = await alice.createThread({
      agent: "bfcl",
      arguments: { functions: [WEATHER] },
      env: { EVAL_CANARY: canary },
      script: [{ toolCalls: [{ id: "w", name: "weather", arguments: JSON.stringify({ city: canary }) }] }, { text: `It is sunny in ${canary}.` }],
    });
    const events = await alice.openEvents(threadId, 0);
    await alice.postMessage(threadId, { content: "What is the weather where my secret says?" });
    await events.waitFor((f) => f.type === "turn_finished", 30_000);
    const from = events.frames.length;
    await alice.postMessage(threadId, { content: "And tomorrow?", script: [{ text: "Sunny again." }] });
    await events.waitFor((f) => f.type === "turn_finished", 30_000, from);
    events.close();
    const [sent, followUp] = (await alice.messages(threadId)).filter((m) => m.role === "user");

    const bobOut = join(work, "bob");
    const bob = await weftEval(["--from-threads", threadId, "--url", weft.url, "--auth", API_KEYS.bob, "--out", bobOut]);
    expect(bob.code).toBe(1);
    expect(bob.stderr).toMatch(new RegExp(`thread ${threadId} cannot be exported: GET /threads/${threadId} -> 404 thread_not_found`));
    expect(existsSync(bobOut)).toBe(false);

    // The owner names it by a query (her newest thread), the admin by its id.
    for (const [who, key, spec] of [["alice", API_KEYS.alice, "latest:1"], ["root", API_KEYS.root, threadId]] as const) {
      const out = join(work, who);
      const run = await weftEval(["--from-threads", spec, "--url", weft.url, "--auth", key, "--out", out]);
      expect(run.stdout, run.stderr).toContain(`eval: exported 2 cases from 1 thread(s) to ${out}`);
      const written = readdirSync(join(out, "cases")).map((f) => readFileSync(join(out, "cases", f), "utf8")).join("\n") + readFileSync(join(out, "suite.json"), "utf8");
      expect(written).not.toContain(canary);
      const [kase, next] = JSON.parse(readFileSync(join(out, "cases", "threads.json"), "utf8"));
      expect(kase).toMatchObject({ id: `${threadId}#${sent!.id}`, agent: "bfcl", asOf: new Date(sent!.createdAt).toISOString(), messages: [sent!.content], expect: { trajectory: ["weather"] } });
      expect(kase.expect.toolCalls).toHaveLength(1);
      expect(kase.env).toBeUndefined();
      expect(kase.history).toBeUndefined();
      // The follow-up starts from the turn before it, which weft takes back as a thread's history.
      expect(next).toMatchObject({ id: `${threadId}#${followUp!.id}`, messages: ["And tomorrow?"], expect: { toolCalls: [] } });
      expect(next.history.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      const replay = await alice.createThread({ agent: "bfcl", arguments: { functions: [WEATHER] }, history: next.history });
      expect((await alice.messages(replay.threadId)).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    }
  }, 300_000);
});
