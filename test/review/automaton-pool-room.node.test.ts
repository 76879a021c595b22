/**
 * review (hostile user, redaction cost across users): the isolate's automata share one budget
 * (src/secrets/automaton-pool.ts), first come first served. Three threads of one user, each made
 * with a different thread env of 1000 secrets of 524 characters (512 Ki units, one automaton's
 * most), held all of it; every redactor made after them in the isolate (another user's thread that
 * woke, or whose owner changed an env value) got no automaton and looked for its forms one at a
 * time for as long as it lived: for a user of 1000 secrets of 48 characters, a 1 MB text took
 * 178 ms instead of 34 ms, and each tool result is redacted several times (its event, its message,
 * its record). A set that does not fit takes the room of larger ones: the attacker's sets are then
 * searched one at a time, at the attacker's cost.
 */
import { afterAll, expect, it } from "vitest";
import { ISOLATE_AUTOMATON_UNITS, automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";
import { letters } from "../secrets/letters.js";

/** The attacker's live threads' redactors (held as a live Durable Object holds them). */
let attacker: Redactor[] = [];
afterAll(() => {
  attacker = [];
});

/** How many `indexOf` calls `run` makes: a search one form at a time makes one or more a form. */
function indexOfCalls(run: () => void): number {
  const indexOf = String.prototype.indexOf;
  let calls = 0;
  String.prototype.indexOf = function (this: string, ...args: [string, number?]) {
    calls++;
    return indexOf.apply(this, args);
  };
  try {
    run();
  } finally {
    String.prototype.indexOf = indexOf;
  }
  return calls;
}

it("one user's sets filling the isolate's budget do not leave another user's redactor without its automaton", () => {
  for (let k = 0; k < 3; k++) {
    const r = new Redactor(Array.from({ length: 1000 }, (_, i) => ({ name: `A${i}`, value: letters(524, 1e7 * (k + 1) + i) })));
    r.prepare();
    attacker.push(r);
  }
  expect(automatonUnitsHeld()).toBeGreaterThan(ISOLATE_AUTOMATON_UNITS - (1 << 19));
  const victimSecrets = Array.from({ length: 1000 }, (_, i) => ({ name: `V${i}`, value: letters(48, 1e6 + i) }));
  const victim = new Redactor(victimSecrets);
  victim.prepare();
  const text = `${letters(100_000, 4242)} ${victimSecrets[500]!.value} end`;
  let out = "";
  // One pass of its automaton, not an indexOf for each of its 1000 forms.
  expect(indexOfCalls(() => (out = victim.plain(text)))).toBeLessThan(50);
  expect(out.endsWith(` ${REDACTED} end`)).toBe(true);
  expect(automatonUnitsHeld()).toBeLessThanOrEqual(ISOLATE_AUTOMATON_UNITS);
  // The attacker's redactors still find every one of their secrets, one form at a time now.
  for (const [k, r] of attacker.entries()) {
    const secret = r.secrets[(k * 337) % 1000]!.value;
    expect(r.plain(`a ${secret} b`)).toBe(`a ${REDACTED} b`);
  }
});
