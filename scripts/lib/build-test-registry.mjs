// @ts-check
/**
 * The workerd suites' global setup (vitest.config.ts): builds test/generated/registry.ts from
 * test/fixtures/ before any file runs, as `npm run test:agents` builds agents/'s. Without it, one
 * file run by hand in a fresh clone failed on a missing `./generated/registry.js`, and after an
 * edit under test/fixtures/ ran against the registry of before. Unchanged output is not rewritten.
 * @module
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Runs `node scripts/build-registry.mjs --tests`, its `file: rule` lines on this console.
 * @throws {Error} when the build refuses test/fixtures/, so that no test runs on a stale registry
 */
export default function buildTestRegistry() {
  const run = spawnSync(process.execPath, [path.join(ROOT, "scripts/build-registry.mjs"), "--tests"], { cwd: ROOT, stdio: "inherit" });
  if (run.status !== 0) throw new Error(`test/fixtures/ did not build (${run.error?.message ?? `exit ${run.status}`}): fix the file: rule lines above`);
}
