#!/usr/bin/env node
// @ts-check
/**
 * `npm run test:agents`: only your own tests: builds the registry from agents/, then runs
 * vitest.agents.config.ts (agents/**\/*.test.ts and the smoke test of agents/) inside workerd,
 * and prints the wall time. Arguments go to vitest (a file filter, `--reporter verbose`).
 * @module
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const started = Date.now();
const steps = [
  [process.execPath, [path.join(ROOT, "scripts/build-registry.mjs")]],
  [path.join(ROOT, "node_modules", ".bin", "vitest"), ["run", "--config", "vitest.agents.config.ts", ...process.argv.slice(2)]],
];
let status = 0;
for (const [command, args] of /** @type {Array<[string, string[]]>} */ (steps)) {
  const run = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  status = run.error ? 1 : (run.status ?? 1);
  if (status !== 0) break;
}
console.log(`test:agents: ${status === 0 ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s wall time`);
process.exit(status);
