/**
 * What a run of weft's workerd suites (vitest.config.ts) does before its files: it builds
 * test/fixtures/'s registry (scripts/lib/build-test-registry.mjs), so `vitest run <file>` works in
 * a fresh clone and after an edit under test/fixtures/ with no `npm run build:tests` first, and it
 * drops Vite's warnings about dependencies' source maps (scripts/lib/vite-logger.mjs).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import buildTestRegistry from "../../scripts/lib/build-test-registry.mjs";

const ROOT = join(import.meta.dirname, "../..");

it("vitest.config.ts runs the build as its global setup, with the quiet logger", async () => {
  // Resolved by vitest itself, in a process of its own (the config installs output filters).
  const code = `import { createVitest } from "vitest/node"; const v = await createVitest("test", { config: "vitest.config.ts", watch: false }); console.log(JSON.stringify({ globalSetup: v.config.globalSetup, plugins: v.vite.config.plugins.map((p) => p.name) })); await v.close();`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT });
  const resolved = JSON.parse(stdout.trim().split("\n").at(-1)!) as { globalSetup: string[]; plugins: string[] };
  expect(resolved.globalSetup).toContain(join(ROOT, "scripts/lib/build-test-registry.mjs"));
  expect(resolved.plugins).toContain("weft:quiet-dependency-sourcemaps");
});

it("the setup writes test/generated/registry.ts from test/fixtures/", () => {
  buildTestRegistry();
  const registry = readFileSync(join(ROOT, "test/generated/registry.ts"), "utf8");
  expect(registry).toContain("test/fixtures/");
});
