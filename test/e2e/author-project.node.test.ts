/**
 * weft's own checks stay green in an author's project. Each case makes a copy of the project,
 * changes it the way the docs lead an author to (a model in `.dev.vars`, the README's word_count
 * tool, a sub-agent listed in an agent's `tools`), and runs there only the suites that read
 * agents/: the author's tests with the smoke test of agents/ (`npm run test:agents`), the README
 * tour, the real-model switch, the author's loop.
 *
 * npm test runs the short version in docs.node.test.ts: one copy with every change at once (and the
 * docs' files), through the author's own suite (`npm run test:agents`). `npm run author-project`
 * runs the full one: that case in a copy of its own, and the README tour, the real-model switch
 * and the author's loop in their copies (each starts its own `wrangler dev`; minutes); and a
 * fresh project made the README's way (`npm install`, `npm start`), where the author adds every
 * change, a test of their own and a recorded-provider test, and both `npm test` and
 * `npm run test:agents` pass (tens of minutes: the whole of `npm test` runs there).
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { freePort } from "../../scripts/lib/dev-server.mjs";
import {
  AUTHOR_FILES,
  DEV_VARS,
  HELPDESK_RECORDED_STEPS,
  HELPDESK_RECORDED_TEST,
  HELPDESK_RECORDING,
  WORD_COUNT,
  authorTestFiles,
  copyProject,
  freshClone,
  ranFiles,
  writeIn,
} from "./support.js";

declare module "vitest" {
  interface ProvidedContext {
    /** `full` under `npm run author-project`; npm test runs the short version. */
    authorProjectScale?: "short" | "full";
  }
}
const full = inject("authorProjectScale") === "full";

const projects: string[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) rmSync(p, { recursive: true, force: true, maxRetries: 3 });
});

/** A copy of the project with `files` written into it. */
function project(files: Record<string, string>): string {
  const dir = copyProject(files);
  projects.push(dir);
  return dir;
}

/** Runs `node <script> ...args` in `cwd`; resolves with the exit code and the combined output. */
function run(cwd: string, args: string[]): Promise<{ code: number; out: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: "1", CI: "" }, maxBuffer: 32 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, out: `${stdout}${stderr}`, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const vitest = (cwd: string) => join(cwd, "node_modules", "vitest", "vitest.mjs");

/** Builds both registries in `dir`, then runs the given vitest files there. */
async function suites(dir: string, files: string[], node = false): Promise<{ code: number; out: string }> {
  for (const args of [["scripts/build-registry.mjs"], ["scripts/build-registry.mjs", "--tests"]]) {
    const build = await run(dir, args);
    if (build.code !== 0) return build;
  }
  return run(dir, [vitest(dir), "run", ...(node ? ["--config", "vitest.node.config.ts"] : []), ...files]);
}

describe("an author's project", () => {
  // npm test runs this case in docs.node.test.ts's copy, which carries the same files besides the docs' own.
  it.runIf(full)("with a sub-agent and a prompt in an agent's tools, the README's tool and a model in .dev.vars: npm run test:agents passes, and its wall time is printed", async () => {
    const dir = project(AUTHOR_FILES);
    const result = await run(dir, ["scripts/test-agents.mjs", "--reporter", "verbose"]);
    expect(result.code, result.out.slice(-4000)).toBe(0);
    // The smoke test of agents/ saw the new agent, and the author's own tests ran.
    expect(result.out).toMatch(/helpdesk is a valid defineAgent and gets a thread/);
    expect(result.out).toMatch(/agents\/tests\/support\.test\.ts/);
    const wall = /test:agents: passed in ([\d.]+) s wall time/.exec(result.out);
    expect(wall, result.out.slice(-2000)).not.toBeNull();
    console.log(`author project: npm run test:agents took ${wall![1]} s wall time (${result.seconds.toFixed(1)} s with the process start)`);
    // Only the author's files ran, not weft's own 800+ tests: counted, not timed.
    expect(ranFiles(result.out), result.out.slice(-2000)).toBe(authorTestFiles(dir).length);
  }, 600_000);

  it.runIf(full)("with a model in .dev.vars: the README tour and the real-model switch pass (npm run author-project)", async () => {
    const dir = project({ ".dev.vars": DEV_VARS });
    const result = await suites(dir, ["test/e2e/readme-tour.node.test.ts", "test/e2e/real-model.node.test.ts"], true);
    expect(result.code, result.out.slice(-4000)).toBe(0);
  }, 300_000);

  it.runIf(full)("with the README's word_count.ts already saved: the author's loop passes (npm run author-project)", async () => {
    const dir = project({ "agents/tools/word_count.ts": WORD_COUNT });
    const result = await suites(dir, ["test/e2e/author-loop.node.test.ts"], true);
    expect(result.code, result.out.slice(-4000)).toBe(0);
  }, 300_000);

  it.runIf(full)(
    "made the README's way (npm install, npm start), with every change the docs lead to, an author's test and a recorded-provider test: npm test and npm run test:agents pass there, and test:agents' wall time is printed",
    async () => {
      const dir = freshClone();
      projects.push(dir);
      const step = async (what: string, command: string, args: string[], env: Record<string, string> = {}) => {
        const result = await shell(dir, command, args, env);
        console.log(`fresh project: ${what}: exit ${result.code} in ${result.seconds.toFixed(1)} s`);
        // npm test's summary (one line per suite) and its failures come last in its output; keep both.
        const summary = result.out.lastIndexOf("test: summary");
        const failures = [...result.out.matchAll(/^ FAIL .*$/gm)].map((m) => m[0]).join("\n");
        expect(result.code, `${what}:\n${failures}\n${summary >= 0 ? result.out.slice(summary) : ""}\n${result.out.slice(-6000)}`).toBe(0);
        return result;
      };

      // The README's first command. The registry is the only network; npm's cache serves what it holds.
      await step("npm install", "npm", ["install"], { npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false" });

      // The API reference builds on the clone as it stands (it once failed until npm test had run).
      await step("npm run docs:api", "npm", ["run", "docs:api"]);

      // `npm start`, then the README's approval-gated call through the weft command, which finds it.
      const server = await npmStart(dir);
      try {
        const weft = (args: string[]) => shell(dir, "npx", ["weft", ...args], { WEFT_LOCAL_URL: server.url });
        const started = await weft(["tool", "call", "refund_order", "--input", '{"orderId":"A-1001","reason":"arrived broken"}']);
        expect(started.code, started.out).toBe(0);
        expect(started.out).toContain(`weft: using the running local weft at ${server.url}`);
        const waiting = JSON.parse(started.stdout);
        expect(waiting).toMatchObject({ toolName: "refund_order", status: "awaiting_approval" });
        const { sessionId, callId } = waiting;
        const listed = await weft(["calls", sessionId]);
        expect(listed.out).toContain(`${callId} refund_order awaiting_approval`);
        const approved = await weft(["approve", sessionId, callId, "--json"]);
        expect(approved.code, approved.out).toBe(0);
        expect(approved.out).toContain("Refunded order A-1001 (blue kettle).");
      } finally {
        await server.stop();
      }

      // The author's changes: a model in .dev.vars, the README's tool, a sub-agent in an agent's
      // tools, a test of their own, and a recorded-provider test, recorded once against a server
      // speaking OpenAI's wire format (the key and base URL in the shell, as docs/testing.md says).
      for (const [path, text] of Object.entries({ ...AUTHOR_FILES, "agents/tests/helpdesk-recorded.test.ts": HELPDESK_RECORDED_TEST })) writeIn(dir, path, text);
      const fake = createFakeProvider();
      const provider = await serveFakeProvider(fake);
      const KEY = "sk-recording-key-0000";
      fake.script(KEY, HELPDESK_RECORDED_STEPS);
      try {
        await step("WEFT_RECORD=1 npm run test:agents -- agents/tests/helpdesk-recorded.test.ts", "npm", ["run", "test:agents", "--", "agents/tests/helpdesk-recorded.test.ts"], {
          WEFT_RECORD: "1",
          OPENAI_API_KEY: KEY,
          OPENAI_BASE_URL: `${provider.url}/v1`,
        });
      } finally {
        await provider.close();
      }
      expect(existsSync(join(dir, HELPDESK_RECORDING))).toBe(true);
      const recording = readFileSync(join(dir, HELPDESK_RECORDING), "utf8");
      expect(recording).not.toContain(KEY);
      expect(recording).not.toContain("sk-author-own-key");

      // Offline now: the recording replays, and the author's suite runs alone.
      const agents = await step("npm run test:agents", "npm", ["run", "test:agents", "--", "--reporter", "verbose"]);
      expect(agents.out).toMatch(/agents\/tests\/helpdesk-recorded\.test\.ts/);
      expect(agents.out).toMatch(/helpdesk is a valid defineAgent and gets a thread/);
      expect(ranFiles(agents.out), agents.out.slice(-2000)).toBe(authorTestFiles(dir).length);
      const wall = /test:agents: passed in ([\d.]+) s wall time/.exec(agents.out);
      expect(wall, agents.out.slice(-2000)).not.toBeNull();
      console.log(`fresh project: npm run test:agents took ${wall![1]} s wall time`);

      const tested = await step("npm test", "npm", ["test"]);
      console.log(`fresh project: npm test's summary:\n${tested.out.slice(tested.out.lastIndexOf("test: summary"))}`);
    },
    3_600_000,
  );
});

/**
 * The env of an author's own shell: none of this run's npm, vitest, weft or provider settings, and
 * not this checkout's node_modules/.bin on the PATH (the project's scripts find their own).
 */
function authorEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|vitest|weft_|openai_|anthropic_|node_options$|node_env$)/i.test(k)));
  env.PATH = (process.env.PATH ?? "").split(delimiter).filter((p) => !p.includes("node_modules")).join(delimiter);
  return { ...env, NO_COLOR: "1", CI: "", WRANGLER_SEND_METRICS: "false", ...extra };
}

/** Runs a command in `cwd` as an author's shell would; resolves with its exit code, output and time. */
function shell(cwd: string, command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; stdout: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: authorEnv(env), maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, out: `${stdout}${stderr}`, stdout, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** `npm start` in `dir` on free ports (its registry and logs in the project); resolves once it serves. */
async function npmStart(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const [port, inspector] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const args = ["start", "--", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--show-interactive-dev-session=false"];
  const env = authorEnv({ WRANGLER_REGISTRY_PATH: join(dir, ".wrangler-home", "registry"), WRANGLER_LOG_PATH: join(dir, ".wrangler-home", "logs") });
  const child = spawn("npm", args, { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"], env });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // gone
        }
        resolve();
      }, 10_000);
      child.once("exit", () => (clearTimeout(timer), resolve()));
    });
  };
  // A bound for a start that hangs, generous for a loaded machine.
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/v1/tools`)).ok) break;
    } catch {
      // not yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not serve ${url}:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(output).toMatch(/weft: model: /);
  return { url, stop };
}
