/**
 * A redactor holding many secrets looks for them in one pass (src/secrets/automaton.ts), not one
 * `indexOf` each: every line the isolate logs passes every thread's redactor, so one user's 1000
 * secrets slowed the lines of every other user's thread. The one pass must find exactly what the
 * search one form at a time finds: the same stretches, overlapping occurrences merged, touching ones
 * apart, periodic forms, nested forms, surrogate pairs, JSON-escaped forms and byte forms alike.
 */
import { afterEach, expect, it } from "vitest";
import { Automaton } from "../../src/secrets/automaton.js";
import { automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { REDACTED, Redactor, replaceRuns } from "../../src/secrets/redact.js";
import { StreamRedactor } from "../../src/secrets/redact-stream.js";
import { AUTOMATON_UNITS, FEW_FORMS, runsEach, runsOf } from "../../src/secrets/runs.js";
import { collected } from "./collect.js";
import { encodings, naiveRuns } from "./naive-runs.js";



// The isolate's automata no search holds any more count against its budget until collected: a test
// after one of a budget's worth would compare the search one form at a time with itself.
afterEach(async () => void (await collected()));




function randomness(seed: number) {
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const word = (n: number, letters: readonly string[]) => Array.from({ length: n }, () => letters[random(letters.length)]).join("");
  return { random, word };
}

/** Alphabets: tiny ones make overlaps, nesting and periodic runs common; the others hold surrogate pairs, a lone surrogate, escapes. */
const ALPHABETS: ReadonlyArray<readonly string[]> = [["a", "b"], ["a", "b", "c"], ["a", "é", "😀", "\ud83d", '"', "\\", "\n"], ["x", "y", "\u0000", "\u2028", "ab", "😀😀"]];

it("a redactor holding 1000 secrets searches a text in one pass, not once per secret", () => {
  // What costs time is passes over the text: counted, not timed (bench/redact-cost.mjs prints the times).
  const secrets = Array.from({ length: 1000 }, (_, i) => ({ name: `K${i}`, value: `sk-proj-${i}-${(i * 7919).toString(36)}` }));
  const r = new Redactor(secrets);
  const text = `${"a log line with nothing secret in it\n".repeat(100)}sk-proj-999-${(999 * 7919).toString(36)} sk-proj-1-`;
  const indexOf = String.prototype.indexOf;
  let searches = 0;
  String.prototype.indexOf = function (this: string, ...args: [string, number?]) {
    searches++;
    return indexOf.apply(this, args);
  };
  let out: string;
  try {
    out = r.plain(text);
  } finally {
    String.prototype.indexOf = indexOf;
  }
  expect(out).toBe(`${"a log line with nothing secret in it\n".repeat(100)}${REDACTED} sk-proj-1-`);
  expect(searches).toBeLessThan(FEW_FORMS);
});

it("finds the same stretches as the search one form at a time and as trying every position, for random sets of forms", () => {
  const { random, word } = randomness(11);
  for (let round = 0; round < 3000; round++) {
    const letters = ALPHABETS[round % ALPHABETS.length]!;
    const count = 1 + random(round % 3 === 0 ? 60 : 12);
    const forms: string[] = [];
    for (let i = 0; i < count; i++) {
      const kind = random(4);
      if (kind === 0) forms.push(word(1 + random(10), letters));
      // Periodic: a short part repeated, then part of it.
      else if (kind === 1) forms.push(word(1 + random(3), letters).repeat(2 + random(5)) + word(random(2), letters));
      // Nested: a piece of a form already there, or one around it.
      else if (kind === 2 && forms.length > 0) {
        const f = forms[random(forms.length)]!;
        const s = random(f.length);
        forms.push(random(2) ? f.slice(s, s + 1 + random(f.length)) : word(random(3), letters) + f + word(random(3), letters));
      } else forms.push(word(1 + random(24), letters));
    }
    const text = Array.from({ length: 1 + random(10) }, () => (random(2) ? forms[random(forms.length)]!.repeat(1 + random(4)) : word(random(8), letters))).join("");
    const expected = naiveRuns(text, forms);
    const label = JSON.stringify({ text, forms });
    expect(new Automaton(forms).runs(text), label).toEqual(expected);
    expect(runsEach(text, forms), label).toEqual(expected);
    expect(runsOf(text, forms), label).toEqual(expected);
  }
});

it("forms past the automaton's budget are looked for one at a time, the stretches merged as one search would", async () => {
  const { random, word } = randomness(23);
  for (let round = 0; round < 6; round++) {
    const letters = ALPHABETS[round % 2]!;
    const short = Array.from({ length: 20 }, () => word(3 + random(8), letters));
    // Long forms, periodic or not, some starting or ending with a short one: together past the budget.
    const long = Array.from({ length: 16 }, (_, i) =>
      i % 2 ? word(1 + random(3), letters).repeat(20_000) : short[random(20)]! + word(50_000, letters) + short[random(20)]!,
    );
    const forms = [...short, ...long];
    expect(forms.reduce((n, f) => n + f.length, 0)).toBeGreaterThan(AUTOMATON_UNITS);
    const text = Array.from({ length: 12 }, () => {
      const f = forms[random(forms.length)]!;
      return random(3) ? f.slice(random(3)) : word(random(20), letters);
    }).join("");
    const expected = runsEach(text, forms);
    expect(expected.length).toBeGreaterThan(0);
    await collected();
    const held = automatonUnitsHeld();
    expect(runsOf(text, forms)).toEqual(expected);
    // An automaton was made of the shortest forms, up to one automaton's budget.
    expect(automatonUnitsHeld() - held).toBeGreaterThan(AUTOMATON_UNITS / 2);
  }
});

it("a redactor holding many secrets answers what the search one form at a time gives, in every way it redacts", () => {
  const { random, word } = randomness(5);
  let checked = 0;
  for (let round = 0; round < 300; round++) {
    const letters = ALPHABETS[round % ALPHABETS.length]!;
    const secrets = Array.from({ length: 2 * FEW_FORMS + random(40) }, (_, i) => ({ name: `S${i}`, value: random(3) ? word(6 + random(10), letters) : word(1 + random(3), letters).repeat(6) }));
    const r = new Redactor(secrets);
    // Random values may repeat; too few left take the other path, which the first test compares already.
    if (r.forms.length <= FEW_FORMS) continue;
    checked++;
    const pick = () => r.secrets[random(r.secrets.length)]!.value;
    const text = Array.from({ length: 1 + random(8) }, () => (random(2) ? pick() : word(random(8), letters))).join("");
    const label = JSON.stringify({ text, secrets: r.secrets.map((s) => s.value) });
    expect(r.plain(text), label).toBe(replaceRuns(text, runsEach(text, r.forms)));
    const json = JSON.stringify({ text });
    expect(r.plain(json), label).toBe(replaceRuns(json, runsEach(json, r.forms)));
    expect(r.value({ [text]: [text] }), label).toEqual({ [r.text(text)]: [r.text(text)] });
    const binary = String.fromCharCode(...new TextEncoder().encode(text));
    const bytes = [...new Set(r.forms.flatMap(encodings))];
    expect(r.bytes(binary), label).toBe(replaceRuns(binary, naiveRuns(binary, bytes)));
    // A stream cut anywhere adds up to the whole text redacted.
    const stream = new StreamRedactor(r);
    let out = "";
    for (let at = 0; at < text.length; ) {
      const piece = 1 + random(5);
      out += stream.push(text.slice(at, at + piece));
      at += piece;
    }
    expect(out + stream.end(), label).toBe(r.plain(text));
  }
  expect(checked).toBeGreaterThan(200);
});

it("the hostile cases hold in one pass: self-overlapping secrets over a text that repeats them, one marker per stretch", () => {
  const many = Array.from({ length: 40 }, (_, i) => ({ name: `R${i}`, value: "a".repeat(6 + i) }));
  const r = new Redactor(many);
  expect(r.forms.length).toBeGreaterThan(FEW_FORMS);
  const text = "a".repeat(1_000_000);
  expect(r.text(`${text}b${text}`)).toBe(`${REDACTED}b${REDACTED}`);
  // Shorter than every secret: nothing found, nothing held.
  expect(r.text(`${"a".repeat(5)}b`)).toBe("aaaaab");
  // Two whole occurrences side by side stay two markers.
  const distinct = new Redactor(Array.from({ length: 20 }, (_, i) => ({ name: `D${i}`, value: `secret-${i}-value` })));
  expect(distinct.text("secret-3-valuesecret-4-value")).toBe(`${REDACTED}${REDACTED}`);
  expect(distinct.text("xsecret-3-valu")).toBe("xsecret-3-valu");
  // Many branches off one node, past the root's table of units below 256: found through the hashed table.
  const wide = Array.from({ length: 1000 }, (_, i) => `${String.fromCharCode(0x4e00 + i)}密钥${String.fromCharCode(0x4e00 + ((i * 7) % 1000))}值`);
  const cjk = Array.from({ length: 3000 }, (_, i) => (i % 3 ? String.fromCharCode(0x4e00 + ((i * 31) % 1200)) : wide[(i * 13) % 1000]!)).join("");
  expect(runsOf(cjk, wide)).toEqual(runsEach(cjk, wide));
  expect(runsOf(cjk, wide).length).toBeGreaterThan(500);
});

it("an automaton takes memory in the strings' total length: 11 bytes a unit, 40 a string, 1 KiB", () => {
  const { word } = randomness(3);
  for (const [count, length] of [[1, 1_000_000], [1000, 48], [1000, 1000], [20_000, 8]] as const) {
    const strings = Array.from({ length: count }, () => word(length, ["a", "b", "c", "d", "é", "😀"]).slice(0, length));
    const units = strings.reduce((n, s) => n + s.length, 0);
    expect(new Automaton(strings).bytes).toBeLessThanOrEqual(11 * (units + 1) + 40 * count + 1024 + 2 * 10);
  }
});

it("makes each forms array's automaton at its first search and reuses it", () => {
  let reads = 0;
  const forms = new Proxy(
    Array.from({ length: 50 }, (_, i) => `key-${i}-${"z".repeat(i)}`),
    { get: (target, key, receiver) => (key === "0" && reads++, Reflect.get(target, key, receiver)) },
  );
  expect(reads).toBe(0);
  for (let i = 0; i < 100; i++) expect(runsOf(`line key-${i % 50}-${"z".repeat(i % 50)}.`, forms)).toEqual([[5, 5 + `key-${i % 50}-`.length + (i % 50)]]);
  // The forms were read once, to make the automaton.
  expect(reads).toBe(1);
});
