import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { hideInjectedCrashes } from "./scripts/lib/expected-noise.mjs";
import { createFakeProvider } from "./scripts/lib/fake-provider.mjs";
import { createFakeMcp, isFakeMcp } from "./scripts/lib/fake-mcp.mjs";
import { createFakeOtlp, isFakeOtlp } from "./scripts/lib/fake-otlp.mjs";
import { quietDependencySourcemaps } from "./scripts/lib/vite-logger.mjs";

// Every outbound fetch of the test worker reaches a fake model provider (OpenAI Chat
// Completions, Responses, Anthropic Messages); tests script it through POST /__fake/script.
const fakeProvider = createFakeProvider();
// Fetches to *.mcp.test reach real MCP SDK servers instead (scripts/lib/fake-mcp.mjs).
const fakeMcp = createFakeMcp();
// Traces of every test turn reach a local OTLP receiver (scripts/lib/fake-otlp.mjs), which decodes
// them with the OpenTelemetry protocol's definitions; the fake provider's outbound list still sees
// each export as text, so a value that must reach no host is looked for there too.
const fakeOtlp = createFakeOtlp({ onRequest: (record) => fakeProvider.outbound.push(record) });

// The crash tests abort threads on purpose; workerd's line for each is expected noise.
hideInjectedCrashes();

// test/README.md: a *.node.test.ts runs in Node (vitest.node.config.ts), a *.agents.test.ts under
// vitest.agents.config.ts, every other test/**/*.test.ts here.
const EXCLUDED = ["test/**/*.node.test.ts", "test/**/*.agents.test.ts", "node_modules/**"];
// Files that change a test user's account env run apart from the shared runtime: every change
// wakes each thread that ever read that account's values (src/account/durable.ts), and in the
// shared runtime that is every such thread of every file before. They share runtimes among
// themselves (seven files, few threads; a runtime each cost a start of 10-15 s a file).
// socket-limit.test.ts needs the low socket limit these runtimes are given.
const OWN_RUNTIME = ["test/thread/socket-limit.test.ts", "test/secrets/env-levels.test.ts", "test/http/openapi-responses.test.ts", "test/secrets/direct-call-secrets.test.ts", "test/secrets/weft-credentials.test.ts", "test/authz/matrix-short.test.ts", "test/authz/secrets-endpoints-short.test.ts"];

// The test worker, with `bindings` over test/wrangler.toml's vars.
const testWorker = (bindings: Record<string, string> = {}) =>
  cloudflareTest({
    wrangler: { configPath: "./test/wrangler.toml" },
    // Traces of every test turn go to the local OTLP receiver, where test/usage/traces.test.ts reads them.
    miniflare: {
      outboundService: (request: Request) => (isFakeMcp(request) ? fakeMcp.handle(request) : isFakeOtlp(request) ? fakeOtlp.handle(request) : fakeProvider.handle(request)),
      bindings: { WEFT_OTLP_URL: "http://otlp.test/v1/traces", ...bindings },
    },
  });

// The tests of the model step and hook deadlines meet them in a second or three; every other file runs
// under test/wrangler.toml's, which no stream a test plays meets however loaded the machine is
// (at 1 s and 3 s, streams of a second or two were retried under load, and tests failed).
const DEADLINE_TESTS = ["test/run/stream-ends.test.ts", "test/run/hook-deadline.test.ts"];
const SHORT_DEADLINES = { WEFT_MODEL_IDLE_MS: "1000", WEFT_MODEL_STEP_MS: "3000", WEFT_HOOK_TIMEOUT_MS: "1000" };

/**
 * Files of the projects with runtimes of their own first, then the shared runtime's, each project's
 * as vitest orders them (longest or largest first). vitest's order puts whole projects one after
 * another by name, so the shared runtime's files all ran first and the others' runtimes started at
 * the end, one long file running alone: a clean clone's workerd suite ended 70 s after the shared
 * files did. Started first, their starts and long files overlap the shared files instead.
 */
class OwnRuntimesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const shared = (spec: TestSpecification) => (spec.project.name === "workerd" ? 1 : 0);
    return sorted.map((spec, at) => ({ spec, at })).sort((a, b) => shared(a.spec) - shared(b.spec) || a.at - b.at).map(({ spec }) => spec);
  }
}

export default defineConfig({
  // Without Vite's warnings about dependencies' source maps (a screenful on a first run).
  plugins: [quietDependencySourcemaps()],
  // The Standard Agents tools API's examples import from @standardagents/spec; weft's public entry answers for it.
  resolve: { alias: { "@standardagents/spec": fileURLToPath(new URL("./src/index.ts", import.meta.url)) } },
  // weft's own suites, over test/fixtures/; the author's tests and the smoke test of agents/ run
  // under vitest.agents.config.ts (`npm run test:agents`).
  test: {
    // Builds test/fixtures/'s registry first, so one file run by hand needs no build step.
    globalSetup: ["scripts/lib/build-test-registry.mjs"],
    setupFiles: ["test/setup.ts"],
    sequence: { sequencer: OwnRuntimesFirst },
    // A bound for a test that hangs, not a claim about speed: generous for a machine loaded by a
    // second npm test (vitest's default 5 s was outlasted by tests of about a second at load
    // average 10, 30 s by a test of a few seconds at load average 25).
    testTimeout: 120_000,
    // Four runtimes take files side by side on 2 cores (vitest's default there is one): most of a
    // file's time is waiting on alarms, deadlines and paced streams (workerd used about a fifth of a
    // core over a whole run), so more runtimes overlap those waits for the cost of a start each.
    // A clean clone's CI here, beside the Node suite: with 2 the workerd suite took 444 s, with 3 341 s.
    maxWorkers: 4,
    projects: [
      // One workerd for every file, the Worker and weft's modules loaded once: a runtime of its own
      // per file cost seconds each (98 files: most of the suite's wall time). Files share storage
      // then: a test makes its own threads and never counts all of a user's.
      { extends: true, plugins: [testWorker()], test: { name: "workerd", isolate: false, include: ["test/**/*.test.ts"], exclude: [...EXCLUDED, ...OWN_RUNTIME, ...DEADLINE_TESTS] } },
      // Runtimes apart from the shared one, with a socket limit low enough to reach (test/thread/socket-limit.test.ts, the OpenAPI check's 429).
      { extends: true, plugins: [testWorker({ WEFT_MAX_SOCKETS_PER_THREAD: "8" })], test: { name: "workerd-own", isolate: false, include: OWN_RUNTIME } },
      { extends: true, plugins: [testWorker(SHORT_DEADLINES)], test: { name: "workerd-deadlines", isolate: false, include: DEADLINE_TESTS } },
    ],
  },
});
