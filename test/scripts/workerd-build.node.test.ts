/**
 * weft's workerd suites build test/fixtures/'s registry before any file runs
 * (scripts/lib/build-test-registry.mjs), so `vitest run --project workerd <file>` works in a fresh
 * clone and after an edit under test/fixtures/, with no `npm run build:tests` first.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import buildTestRegistry from "../../scripts/lib/build-test-registry.mjs";

const ROOT = join(import.meta.dirname, "../..");

it("vitest.config.ts runs the build as its global setup", async () => {
  // Resolved by vitest itself, in a process of its own (the config installs output filters).
  const code = `import { createVitest } from "vitest/node"; const v = await createVitest("test", { config: "vitest.config.ts", watch: false }); console.log(JSON.stringify(v.config.globalSetup)); await v.close();`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT });
  expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toContain(join(ROOT, "scripts/lib/build-test-registry.mjs"));
});

it("the setup writes test/generated/registry.ts from test/fixtures/", () => {
  buildTestRegistry();
  const registry = readFileSync(join(ROOT, "test/generated/registry.ts"), "utf8");
  expect(registry).toContain("test/fixtures/");
});
