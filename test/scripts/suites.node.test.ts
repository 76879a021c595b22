/**
 * `npm test` runs every suite and fails if any failed: a failing suite never hides the ones after
 * it (chained with `&&` in package.json, one failure skipped every later suite).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runLanes, runSuites } from "../../scripts/lib/suites.mjs";

const ROOT = join(import.meta.dirname, "../..");
const node = (code: string) => ({ command: process.execPath, args: ["-e", code] });

describe("npm test", () => {
  it("runs every suite after a failing one, and reports each", () => {
    const { results, failed } = runSuites(
      [
        { name: "first", ...node("process.exit(3)") },
        { name: "second", ...node("process.exit(0)") },
        { name: "third", ...node("process.exit(1)") },
      ],
      ROOT,
    );
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ["first", 3],
      ["second", 0],
      ["third", 1],
    ]);
    expect(failed.map((r) => r.name)).toEqual(["first", "third"]);
  });

  it("prints the whole run's wall time in one line, the suites' seconds added up", () => {
    const log: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => void log.push(args.join(" "));
    let run: ReturnType<typeof runSuites>;
    try {
      run = runSuites([{ name: "one", ...node("setTimeout(() => {}, 300)") }, { name: "two", ...node("process.exit(0)") }], ROOT);
    } finally {
      console.log = original;
    }
    const line = log.find((l) => l.startsWith("test: wall time "));
    expect(line, log.join("\n")).toMatch(/^test: wall time \d+\.\d s, 2 suites passed$/);
    const total = run!.results.reduce((sum, r) => sum + r.seconds, 0);
    expect(Number(/wall time ([\d.]+) s/.exec(line!)![1])).toBeGreaterThanOrEqual(Math.floor(total * 10) / 10);
    expect(run!.seconds).toBeGreaterThanOrEqual(0.3);
  });

  it("runs lanes side by side, each lane's suites one after another, and reports every suite in order", async () => {
    // Each suite of the two lanes writes its file, then waits for the other lane's: only suites
    // running at the same time both end 0 (a generous bound for a loaded machine, then exit 9).
    const dir = mkdtempSync(join(tmpdir(), "weft-lanes-"));
    const meet = (mine: string, theirs: string) =>
      node(
        `const fs = require("node:fs"); fs.writeFileSync(${JSON.stringify(join(dir, mine))}, ""); const end = Date.now() + 60000;` +
          `(function wait() { if (fs.existsSync(${JSON.stringify(join(dir, theirs))})) process.exit(0); if (Date.now() > end) process.exit(9); setTimeout(wait, 20); })();`,
      );
    const log: string[] = [];
    const original = console.log;
    console.log = (...args: unknown[]) => void log.push(args.join(" "));
    let run: Awaited<ReturnType<typeof runLanes>>;
    try {
      run = await runLanes(
        [
          [{ name: "a1", ...meet("a", "b") }, { name: "a2", ...node("process.exit(2)") }],
          [{ name: "b1", ...meet("b", "a") }, { name: "b2", ...node("process.exit(0)") }],
        ],
        ROOT,
        [{ name: "first", ...node("process.exit(0)") }],
      );
    } finally {
      console.log = original;
      rmSync(dir, { recursive: true, force: true });
    }
    expect(run.results.map((r) => [r.name, r.status])).toEqual([
      ["first", 0],
      ["a1", 0],
      ["a2", 2],
      ["b1", 0],
      ["b2", 0],
    ]);
    expect(run.failed.map((r) => r.name)).toEqual(["a2"]);
    expect(log.find((l) => l.startsWith("test: wall time ")), log.join("\n")).toMatch(/^test: wall time \d+\.\d s, 1 of 5 suites failed$/);
  }, 300_000);

  it("is scripts/test.mjs, never a chain of suites with &&, and CI runs exactly npm test", () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.test).toBe("node scripts/test.mjs");
    const runner = readFileSync(join(ROOT, "scripts/test.mjs"), "utf8");
    for (const suite of ["build", "typecheck", "workerd", "agents", "node"]) expect(runner).toContain(`name: "${suite}"`);
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8").trimEnd().split("\n").at(-1)).toBe("npm test");
  });

  it("selects every *.test.ts under test/ and agents/ in exactly one suite (test/README.md)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-suites-"));
    // What each config selects, as vitest itself globs it (no test runs).
    const selected = async (config: string) => {
      const out = join(dir, `${config}.json`);
      await promisify(execFile)(join(ROOT, "node_modules/.bin/vitest"), ["list", "--filesOnly", "--config", config, `--json=${out}`], { cwd: ROOT });
      const files = JSON.parse(readFileSync(out, "utf8")) as { file: string; projectName?: string }[];
      return files.map((f) => ({ file: relative(ROOT, f.file), suite: f.projectName ? `${config} (${f.projectName})` : config }));
    };
    let lists: { file: string; suite: string }[][];
    try {
      lists = await Promise.all(["vitest.config.ts", "vitest.agents.config.ts", "vitest.node.config.ts"].map(selected));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const suitesOf = new Map<string, string[]>();
    for (const { file, suite } of lists.flat()) suitesOf.set(file, [...(suitesOf.get(file) ?? []), suite]);
    const files = ["test", "agents"].flatMap((top) =>
      (readdirSync(join(ROOT, top), { recursive: true }) as string[]).filter((f) => f.endsWith(".test.ts")).map((f) => join(top, f)),
    );
    expect(files.length).toBeGreaterThan(100);
    const wrong = files.map((f) => [f, suitesOf.get(f) ?? []] as const).filter(([, suites]) => suites.length !== 1);
    expect(wrong, "each file's suites: none or two means a file is dropped or run twice").toEqual([]);
  }, 300_000);
});
