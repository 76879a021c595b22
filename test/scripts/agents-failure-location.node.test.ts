/**
 * A failing expect in an author's test (`npm run test:agents`) is reported at its own line and
 * column in the file, not at the line of the code vitest ran in workerd (vitest.agents.config.ts).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

it("reports each failure of an agents test that imports weft/testing at its line and column", async () => {
  const run = await promisify(execFile)(join(ROOT, "node_modules/.bin/vitest"), ["run", "--config", "test/scripts/agents-failure/vitest.config.ts"], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  }).then(
    () => ({ out: "", failed: false }),
    (error: { stdout: string; stderr: string }) => ({ out: error.stdout + error.stderr, failed: true }),
  );
  expect(run.failed).toBe(true);
  // Where vitest points for each failure: "❯ <file>:<line>:<column>".
  const reported = [...run.out.matchAll(/❯ (test\/scripts\/agents-failure\/lines\.fixture\.ts:\d+:\d+)/g)].map((m) => m[1]);
  expect(reported).toEqual(["test/scripts/agents-failure/lines.fixture.ts:7:17", "test/scripts/agents-failure/lines.fixture.ts:13:21"]);
}, 300_000);
