/// <reference types="vite/client" />
/**
 * One effect policy: the effect table of docs/guarantees.md is the table in code (src/tools/policy.ts), and
 * every effect class has an action for every situation.
 */
import { describe, expect, it } from "vitest";
import readme from "../../docs/guarantees.md?raw";
import { EFFECT_POLICY, policyFor, renderPolicyTable } from "../../src/tools/policy.js";
import { EFFECT_EXITS, journalWait, renderExitTable } from "../../src/tools/journal-order.js";

describe("the effect policy table", () => {
  it("is the table docs/guarantees.md shows, cell for cell", () => {
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

  it("shows, beside it, the ways out of the thread and what orders the journal row before each", () => {
    const start = readme.indexOf("| an effect of `execute` leaves by |");
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start, readme.indexOf("\n\n", start))).toBe(renderExitTable());
  });

  it("lets execute skip the journal's commit only behind an output gate, and never for a read's held row", () => {
    for (const effect of ["write", "idempotent", "reconcilable"] as const) {
      expect(journalWait(effect, true)).toBe("write");
      expect(journalWait(effect, false)).toBe("commit");
    }
    expect(journalWait("read", true)).toBe("nothing");
    expect(journalWait("read", false)).toBe("nothing");
    // Only a host without the gate waits; every way out of a Durable Object is held or ordered.
    expect(EFFECT_EXITS.filter((e) => e.order === "commit_awaited").map((e) => e.exit)).toEqual([expect.stringMatching(/no output gate/)]);
  });
});
