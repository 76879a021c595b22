/**
 * What `npm run test:agents` prints for an author's file that fails (vitest.agents.config.ts, run
 * over test/scripts/agents-failure/lines.fixture.ts): each failure at its own line and column in
 * the file, not at the line of the code vitest ran in workerd; and no line about WEFT_AUTH = "none",
 * which the test config sets and only the runner reaches.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

describe("npm run test:agents on a file that fails", () => {
  let run: { out: string; failed: boolean };
  beforeAll(async () => {
    run = await promisify(execFile)(join(ROOT, "node_modules/.bin/vitest"), ["run", "--config", "test/scripts/agents-failure/vitest.config.ts"], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    }).then(
      () => ({ out: "", failed: false }),
      (error: { stdout: string; stderr: string }) => ({ out: error.stdout + error.stderr, failed: true }),
    );
  }, 300_000);

  it("reports each failure of a file importing weft/testing at its line and column", () => {
    expect(run.failed).toBe(true);
    // Where vitest points for each failure: "❯ <file>:<line>:<column>".
    const reported = [...run.out.matchAll(/❯ (test\/scripts\/agents-failure\/lines\.fixture\.ts:\d+:\d+)/g)].map((m) => m[1]);
    expect(reported).toEqual(["test/scripts/agents-failure/lines.fixture.ts:7:17", "test/scripts/agents-failure/lines.fixture.ts:13:21"]);
  });

  it("prints no line about WEFT_AUTH = \"none\" though the Worker ran a turn", () => {
    expect(run.out).toContain("fails after a turn");
    expect(run.out).not.toContain("WEFT_AUTH");
  });
});
