/**
 * `npm start -- --help` prints wrangler dev's options and starts nothing: no example MCP server
 * (they take fixed ports), no stack mapper, no server.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/dev-server.mjs";

it("prints wrangler dev's help and starts none of the example's servers", () => {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, "scripts/start.mjs"), "--help"], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("wrangler dev");
  expect(run.stdout + run.stderr).not.toContain("weft: the example's MCP server");
});
