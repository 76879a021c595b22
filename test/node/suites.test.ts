/**
 * `npm test` runs every suite and fails if any failed: a failing suite never hides the ones after
 * it (chained with `&&` in package.json, one failure skipped every later suite).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSuites } from "../../scripts/lib/suites.mjs";

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

  it("is scripts/test.mjs, never a chain of suites with &&, and CI runs exactly npm test", () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.test).toBe("node scripts/test.mjs");
    const runner = readFileSync(join(ROOT, "scripts/test.mjs"), "utf8");
    for (const suite of ["typecheck", "workerd", "agents", "node"]) expect(runner).toContain(`name: "${suite}"`);
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8").trimEnd().split("\n").at(-1)).toBe("npm test");
  });
});
