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

  it("is scripts/test.mjs, never a chain of suites with &&, and CI runs exactly npm test", () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.test).toBe("node scripts/test.mjs");
    const runner = readFileSync(join(ROOT, "scripts/test.mjs"), "utf8");
    for (const suite of ["typecheck", "workerd", "agents", "node"]) expect(runner).toContain(`name: "${suite}"`);
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8").trimEnd().split("\n").at(-1)).toBe("npm test");
  });
});
