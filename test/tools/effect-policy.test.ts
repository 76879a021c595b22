/// <reference types="vite/client" />
/**
 * One effect policy: the README's effect table is the table in code (src/tools/policy.ts), and
 * every effect class has an action for every situation.
 */
import { describe, expect, it } from "vitest";
import readme from "../../README.md?raw";
import { EFFECT_POLICY, policyFor, renderPolicyTable } from "../../src/tools/policy.js";

describe("the effect policy table", () => {
  it("is the table the README shows, cell for cell", () => {
    const start = readme.indexOf("| effect | transient failure |");
    expect(start).toBeGreaterThan(0);
    const table = readme.slice(start, readme.indexOf("\n\n", start));
    expect(table).toBe(renderPolicyTable());
  });

  it("keeps the promises the guarantees rest on", () => {
    // A write never runs twice: no situation may re-run or retry it.
    for (const situation of ["transient_failure", "restart_after_journal", "stop_while_running"] as const) {
      expect(["retry", "rerun"]).not.toContain(policyFor("write", situation));
    }
    // Only reads run in a dry-run thread.
    expect(Object.entries(EFFECT_POLICY).filter(([, row]) => row.dry_run === "run").map(([effect]) => effect)).toEqual(["read"]);
  });
});
