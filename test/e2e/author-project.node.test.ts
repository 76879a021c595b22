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
 * and the author's loop in their copies (each starts its own `wrangler dev`; minutes).
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { AUTHOR_FILES, DEV_VARS, WORD_COUNT, authorTestFiles, copyProject, ranFiles } from "./support.js";

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
});
