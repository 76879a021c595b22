/**
 * `npm run authz`: runs the authorization matrix inside workerd (test/authz/) and prints its
 * verdict line, `authz: <r> routes x <p> principals: ...`, plus one line per finding.
 * Exits non-zero when the matrix finds anything or fails to run.
 * @module
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const run = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--config", "test/authz/vitest.config.ts"], {
  cwd: root,
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
// eslint-disable-next-line no-control-regex
const output = `${run.stdout}\n${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
const lines = output.split("\n").filter((l) => l.startsWith("authz: "));
for (const line of lines) console.log(line);
if (run.status !== 0 || lines.length === 0) {
  console.error(output.split("\n").slice(-40).join("\n"));
  process.exit(run.status || 1);
}
