#!/usr/bin/env node
// @ts-check
/**
 * `npm test`: every suite runs, one after another, whatever an earlier one did; then one line per
 * suite says how it ended and the exit status is 1 if any failed. (Chained with `&&`, a failing
 * type-check or workerd suite used to hide every suite after it.)
 *
 *   typecheck   the registries, then tsc over src, agents, test and the Node scripts
 *   workerd     `vitest run`: weft's own suites inside workerd, over test/fixtures/
 *   agents      the author's tests (`*.test.ts` under agents/) and the smoke test of agents/ (`npm run test:agents`)
 *   node        `vitest run --config test/node/vitest.config.ts`: build scripts, end-to-end runs
 *
 * Arguments after `--` go to every vitest run (a file filter, `--reporter`).
 * @module
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runSuites } from "./lib/suites.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (/** @type {string} */ name) => path.join(ROOT, "node_modules", ".bin", name);
const extra = process.argv.slice(2);

const { failed } = runSuites(
  [
    { name: "typecheck", command: "npm", args: ["run", "typecheck", "--silent"] },
    { name: "workerd", command: bin("vitest"), args: ["run", ...extra] },
    { name: "agents", command: bin("vitest"), args: ["run", "--config", "vitest.agents.config.ts", ...extra] },
    { name: "node", command: bin("vitest"), args: ["run", "--config", "test/node/vitest.config.ts", ...extra] },
  ],
  ROOT,
);
process.exit(failed.length > 0 ? 1 : 0);
