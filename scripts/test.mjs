#!/usr/bin/env node
// @ts-check
/**
 * `npm test`: every suite runs whatever an earlier one did; then one line per suite says how it
 * ended, one line gives the whole run's wall time, and the exit status is 1 if any failed.
 * (Chained with `&&`, a failing type-check or workerd suite used to hide every suite after it.)
 *
 *   build       the registries every suite reads (app, test fixtures, bench), first
 *   workerd     `vitest run`: weft's own suites inside workerd, over test/fixtures/
 *   agents      the author's tests (`*.test.ts` under agents/) and the smoke test of agents/ (`npm run test:agents`)
 *   typecheck   tsc over src, agents, test and the Node scripts
 *   node        `vitest run --config vitest.node.config.ts`: build scripts, end-to-end runs
 *
 * Three lanes run side by side after the build: workerd then agents, node, typecheck. Much of
 * the workerd and node suites waits (on alarms, deadlines, `wrangler dev` starts; the workerd
 * runtime used about a fifth of a core over a run), so the type-check, which only computes, runs
 * in that idle time instead of holding the node suite back a minute. One after another the suites
 * took over 600 s. The workerd lane's output shows as it comes, the other lanes' output whole as
 * each of their suites ends. The long proofs run in full in their own scripts
 * (`npm run crash-matrix`, `fuzz`, `authz`, `sandbox`, `bfcl`, `jsts`, `author-project`).
 *
 * Arguments after `--` go to every vitest run (a file filter, `--reporter`).
 * @module
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runLanes } from "./lib/suites.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (/** @type {string} */ name) => path.join(ROOT, "node_modules", ".bin", name);
const extra = process.argv.slice(2);

const { failed } = await runLanes(
  [
    [
      { name: "workerd", command: bin("vitest"), args: ["run", ...extra] },
      { name: "agents", command: bin("vitest"), args: ["run", "--config", "vitest.agents.config.ts", ...extra] },
    ],
    [{ name: "node", command: bin("vitest"), args: ["run", "--config", "vitest.node.config.ts", ...extra] }],
    [{ name: "typecheck", command: "npm", args: ["run", "typecheck:tsc", "--silent"] }],
  ],
  ROOT,
  [{ name: "build", command: "npm", args: ["run", "build:all", "--silent"] }],
);
process.exit(failed.length > 0 ? 1 : 0);
