/**
 * Review (secrets): the redactor found every occurrence of a secret by searching again one character
 * after the last one found. A user sets both their secrets and their text: a secret that overlaps
 * itself ("aaaaaa") in a text that repeats it matched at every character, each match kept as a span
 * and each costing the secret's length to confirm. One 6-character secret over 1 MB of "a" took
 * ~100 MB; the 32 values an account keeps after rotating them (src/account/retired-secrets.ts) ran
 * a 128 MB isolate out of memory; a 100 000-character secret over 1 MB took 77 s of CPU. Since every
 * stored message, event and answer of the owner's threads passes the redactor, that wedged the
 * thread and took the isolate (and the threads of others it holds) down with it. And a long secret
 * that repeats a short part was looked for with `indexOf`, which compares up to its whole length at
 * each character of a text that keeps almost matching it (60 s for "a" x 100 000 over 1 MB). A form
 * that repeats a part is now looked for by two of that part, and its occurrences placed by how far
 * the text goes on repeating it.
 */
import { expect, it } from "vitest";
import { Redactor, runsOf } from "../../src/secrets/redact.js";
import { naiveRuns } from "../secrets/naive-runs.js";


it("a secret that overlaps itself, over a text that repeats it, costs time and memory in the text's length", () => {
  const text = "a".repeat(1_000_000);
  const started = performance.now();
  const retired = new Redactor(Array.from({ length: 32 }, (_, i) => ({ name: `R${i}`, value: "a".repeat(6 + i) })));
  expect(retired.text(`${text}b${text}`)).toBe("[redacted]b[redacted]");
  const long = new Redactor([{ name: "L", value: "a".repeat(100_000) }]);
  expect(long.text(text)).toBe("[redacted]");
  expect(performance.now() - started, "ms to redact 1 MB of a self-overlapping secret").toBeLessThan(3000);
});

it("finds the same stretches as trying every position, overlaps and touching occurrences alike", () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const word = (n: number, letters: string) => Array.from({ length: n }, () => letters[random(letters.length)]).join("");
  for (let round = 0; round < 2000; round++) {
    const letters = round % 2 === 0 ? "ab" : "abc";
    const forms = Array.from({ length: 1 + random(3) }, () => (random(2) ? word(1 + random(12), letters) : word(1 + random(3), letters).repeat(2 + random(4)) + word(random(3), letters)));
    // Texts that repeat a form, with noise between: periodic runs, and occurrences that touch.
    const text = Array.from({ length: 6 }, () => (random(2) ? forms[random(forms.length)]!.repeat(1 + random(4)) : word(random(6), letters))).join("");
    expect(runsOf(text, forms), JSON.stringify({ text, forms })).toEqual(naiveRuns(text, forms));
  }
  // Two whole occurrences side by side stay two stretches (two markers).
  expect(runsOf("abcdefabcdef", ["abcdef"])).toEqual([[0, 6], [6, 12]]);
});

it("a long secret that repeats a short part costs the text's length to look for, found or not", () => {
  // A search for "a" x 100 000 compared up to the whole form at each character of text that keeps almost matching it.
  const form = "a".repeat(100_000);
  const text = `${"a".repeat(99_999)}b`.repeat(10);
  const started = performance.now();
  const r = new Redactor([{ name: "L", value: form }]);
  expect(r.text(text)).toBe(text);
  expect(r.text(`${text}${form}a`)).toBe(`${text}[redacted]`);
  expect(performance.now() - started, "ms to look for a repeating secret in 1 MB").toBeLessThan(3000);
});
