/**
 * The isolate's automata are shared and counted in workerd too (src/secrets/automaton-pool.ts uses
 * WeakRef and FinalizationRegistry, which workerd offers from the `enable_weak_ref` compatibility
 * date on): two threads' redactors of the same secrets hold one automaton.
 */
import { expect, it } from "vitest";
import { automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { Redactor } from "../../src/secrets/redact.js";

it("redactors of the same secrets share one automaton in workerd", () => {
  const secrets = Array.from({ length: 40 }, (_, i) => ({ name: `K${i}`, value: `workerd-pool-secret-${i}` }));
  const start = automatonUnitsHeld();
  const a = new Redactor(secrets);
  expect(a.plain("x workerd-pool-secret-7 y")).toBe("x [redacted] y");
  const one = automatonUnitsHeld() - start;
  expect(one).toBeGreaterThan(40 * 20);
  const b = new Redactor([...secrets].reverse());
  expect(b.plain("workerd-pool-secret-39")).toBe("[redacted]");
  expect(automatonUnitsHeld() - start).toBe(one);
});
