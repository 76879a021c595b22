/**
 * Several Durable Objects (threads of many users) share an isolate and its 128 MB. Each redactor of
 * more than 16 forms made its own automaton (src/secrets/automaton.ts) of up to 512 Ki units, about
 * 5.5 MB, and a thread holds up to five (its text, JSON and byte forms, and its log redactor's two):
 * a user whose account held 8 MB of secrets made each of their threads hold 27 MB of automata,
 * four threads in one isolate 109 MB (measured, Node 22). The isolate's automata are now shared
 * by identical sets and bounded together (src/secrets/automaton-pool.ts); past the budget, forms
 * are looked for one at a time, which finds the same stretches.
 */
import { expect, it } from "vitest";
import { Redactor, replaceRuns } from "../../src/secrets/redact.js";
import { ISOLATE_AUTOMATON_UNITS, automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { collected } from "./collect.js";
import { naiveRuns } from "./naive-runs.js";


/** Memory the isolate's typed arrays hold (an automaton's tables are typed arrays), after a full collection. */
const arrayBufferBytes = async (): Promise<number> => (await collected()).arrayBuffers;

function words(seed: number) {
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  return (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      out.push(letters[(seed >>> 0) % 64]!);
    }
    return out.join("");
  };
}

/** An account's secrets past one automaton's 512 Ki units: 1000 values of 600 characters. */
const word = words(1);
const account = Array.from({ length: 1000 }, (_, i) => ({ name: `K${i}`, value: word(600) }));

/** What one thread of the owner holds: its redactor (text and JSON searches made) and its log redactor's. */
function thread(extra: string): Redactor[] {
  const own = new Redactor([...account, { name: "T", value: extra }]);
  const logs = new Redactor([...account, { name: "T", value: extra }, { name: "W", value: "worker-secret-value" }]);
  own.prepare();
  logs.prepare();
  return [own, logs];
}

it("one user's threads, each given a secret of its own, hold at most the isolate's automaton budget", async () => {
  const before = await arrayBufferBytes();
  const held = [thread("thread-1-secret"), thread("thread-2-secret"), thread("thread-3-secret")];
  const grown = (await arrayBufferBytes()) - before;
  // 3 threads x 4 automata of 512 Ki units each took 66 MB; the budget is 1.5 Mi units (~17 MB).
  expect(grown, "bytes of automata held").toBeLessThan(20 * 2 ** 20);
  expect(automatonUnitsHeld()).toBeLessThanOrEqual(ISOLATE_AUTOMATON_UNITS);
  // Past the budget, a redactor finds what the search one form at a time finds.
  const late = new Redactor([...account, { name: "L", value: "late-thread-secret" }]);
  const text = `x${account[7]!.value}y late-thread-secret ${account[999]!.value.slice(1)} ${account[3]!.value}`;
  expect(late.plain(text)).toBe(replaceRuns(text, naiveRuns(text, late.forms)));
  expect(late.plain(text)).toBe("x[redacted]y [redacted] " + account[999]!.value.slice(1) + " [redacted]");
  for (const r of held.flat()) expect(r.plain(text)).toBe("x[redacted]y late-thread-secret " + account[999]!.value.slice(1) + " [redacted]");
});

it("threads with the same secrets share one automaton, and the budget comes back when their redactors go", async () => {
  const start = await arrayBufferBytes();
  const startUnits = automatonUnitsHeld();
  // The same set in another order (as another thread reads it), and JSON forms that equal the text forms.
  const a = new Redactor(account);
  a.prepare();
  const once = (await arrayBufferBytes()) - start;
  const units = automatonUnitsHeld() - startUnits;
  expect(units).toBeGreaterThan(0);
  const others = Array.from({ length: 4 }, () => new Redactor([...account].reverse()));
  for (const r of others) r.prepare();
  expect(automatonUnitsHeld() - startUnits).toBe(units);
  expect((await arrayBufferBytes()) - start, "bytes after four more threads").toBeLessThan(once + 2 ** 20);
  const text = `${account[5]!.value} and ${account[500]!.value}`;
  for (const r of [a, ...others]) expect(r.plain(text)).toBe("[redacted] and [redacted]");
});

it("the budget held by redactors no longer in use is given back", async () => {
  let made: Redactor[] | null = [new Redactor(account.map((s) => ({ ...s, value: `${s.value}!` })))];
  made[0]!.prepare();
  const held = automatonUnitsHeld();
  expect(held).toBeGreaterThan(0);
  made = null;
  await arrayBufferBytes();
  expect(automatonUnitsHeld()).toBeLessThan(held);
  expect(made).toBeNull();
});

it("many small automata count their tables against the budget, not only their strings", async () => {
  const before = await arrayBufferBytes();
  // 17 forms of 6 characters: 102 units of strings, but about 2.5 KB of tables each.
  const small = words(2);
  const many = Array.from({ length: 16_000 }, (_, t) => {
    const r = new Redactor(Array.from({ length: 17 }, (_, i) => ({ name: `S${i}`, value: small(6) })));
    r.plain(`thread ${t}`);
    return r;
  });
  const grown = (await arrayBufferBytes()) - before;
  expect(grown, "bytes of automata held").toBeLessThan(20 * 2 ** 20);
  expect(automatonUnitsHeld()).toBeLessThanOrEqual(ISOLATE_AUTOMATON_UNITS);
  const secret = many[15_999]!.secrets[3]!.value;
  expect(many[15_999]!.plain(`a ${secret} b`)).toBe("a [redacted] b");
});
