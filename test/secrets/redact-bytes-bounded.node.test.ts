/**
 * A user's 8 MiB of secrets in each thread's redactor: `Redactor.bytes` made every form's encodings
 * (UTF-8, UTF-16 of both byte orders) as strings, a character at a time, and kept them: 1000
 * secrets of 8000 characters took 10.5 s of the isolate's one thread at a thread's first text file
 * served, then held 38 MB a thread; each redactor also held a copy of every JSON-escaped form
 * equal to its value (8 MB), and the log redactor a search for them that nothing used (Node 22).
 * The bytes are now read in each encoding and searched with the forms' own search
 * (src/secrets/byte-runs.ts), which finds the same stretches: checked here against each encoding
 * made and searched the naive way.
 */
import { expect, it } from "vitest";
import { Redactor, replaceRuns } from "../../src/secrets/redact.js";
import { automatonUnitsHeld } from "../../src/secrets/automaton-pool.js";
import { FEW_FORMS, runsOf } from "../../src/secrets/runs.js";
import { collected } from "./collect.js";
import { encodings, naiveRuns } from "./naive-runs.js";
import { letters } from "./letters.js";

/** Heap in use after full collections. */
const heapBytes = async (): Promise<number> => (await collected()).heapUsed;

it("threads' redactors of the same 1.6 MB of secrets hold less than the secrets themselves, byte search made and used", async () => {
  const secrets = Array.from({ length: 200 }, (_, i) => ({ name: `S${i}`, value: letters(8000, i + 1) }));
  const file = `a file with ${secrets[7]!.value} in it`;
  const utf16 = Buffer.from(file, "utf16le").toString("latin1");
  const before = await heapBytes();
  const threads: Redactor[] = [];
  for (let t = 0; t < 3; t++) {
    const r = new Redactor(secrets);
    r.prepare();
    expect(r.bytes(file)).toBe("a file with [redacted] in it");
    expect(r.bytes(utf16)).not.toContain(Buffer.from(secrets[7]!.value, "utf16le").toString("latin1"));
    threads.push(r);
  }
  // The forms' automaton is shared and outside the heap (typed arrays); the secrets were counted before.
  // Made as strings, the byte forms and escaped copies took about 10 MB a redactor here.
  expect(await heapBytes() - before).toBeLessThan(1024 * 1024);
  expect(threads).toHaveLength(3);
});

it("a redactor's search is one automaton, whether or not its secrets have a JSON-escaped form", async () => {
  const quoted = Array.from({ length: 40 }, (_, i) => ({ name: `Q${i}`, value: `"${letters(30, 1000 + i)}"` }));
  await heapBytes();
  const held = automatonUnitsHeld();
  const r = new Redactor(quoted);
  expect(r.forms).toHaveLength(80);
  r.prepare();
  // Its forms' units, a few a string and an automaton's base: no second search for the escaped forms alone.
  const units = r.forms.reduce((n, f) => n + f.length, 0);
  expect(automatonUnitsHeld() - held).toBeLessThan(units + 10 * r.forms.length + 200);
  expect(automatonUnitsHeld() - held).toBeGreaterThanOrEqual(units);
});

/**
 * `text` in UTF-8's pattern but no UTF-8, one way each: `way` 0 writes a pair's surrogates apart
 * (three bytes each), 1 and 2 ASCII in two or three bytes (overlong), the rest as UTF-8 writes it.
 */
function notUtf8(text: string, way: number): string {
  let out = "";
  const three = (u: number) => String.fromCharCode(0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
  for (const ch of text) {
    const u = ch.charCodeAt(0);
    if (way === 0 && ch.length === 2) out += three(u) + three(ch.charCodeAt(1));
    else if (way === 1 && u < 0x80) out += String.fromCharCode(0xc0 | (u >> 6), 0x80 | (u & 0x3f));
    else if (way === 2 && u < 0x80) out += three(u);
    else out += String.fromCharCode(...new TextEncoder().encode(ch));
  }
  return out;
}

it("bytes are redacted as a search for each form's encodings finds them: any text, any secrets, every encoding and alignment", () => {
  let seed = 7;
  // The high bits: an LCG's low bits repeat in short cycles.
  const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
  // Units that make every case: ASCII, Latin-1, wide, surrogates (paired and lone), bytes of UTF-8 lead and continuation.
  const units = [0x61, 0x62, 0x00, 0x22, 0x5c, 0x80, 0xbf, 0xc3, 0xe9, 0xff, 0xf0, 0x9f, 0xed, 0xa0, 0xb8, 0x100, 0x6162, 0x20ac, 0xd83d, 0xde00, 0xdc00, 0xfffd, 0xffff];
  const word = (n: number, pool: number[]) => String.fromCharCode(...Array.from({ length: n }, () => pool[random(pool.length)]!));
  let rounds = 0;
  for (let round = 0; round < 400; round++) {
    // Some rounds' secrets are all of wide characters (none JSON escapes).
    const pool = round % 10 === 7 ? [0x100, 0x6162, 0x20ac] : units.slice(0, 3 + random(units.length - 2));
    const count = random(2) ? 1 + random(FEW_FORMS) : FEW_FORMS + 1 + random(30);
    const secrets = Array.from({ length: count }, (_, i) => ({ name: `S${i}`, value: random(4) ? word(6 + random(6), pool) : word(1 + random(2), pool).repeat(6) }));
    // Some rounds hold every byte, so no byte is free to stand for a wide unit.
    if (round % 10 === 5) secrets.push({ name: "PAIRS", value: "\ud83d\ude00ab\ud83d\ude00" });
    if (round % 10 === 0) secrets.push({ name: "ALL", value: String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)) });
    const r = new Redactor(secrets);
    const forms = [...new Set(r.forms.flatMap(encodings))];
    const pieces = Array.from({ length: 1 + random(6) }, () => {
      const secret = r.secrets[random(r.secrets.length)]!.value;
      const bytes = encodings(secret)[random(3)]!;
      return [bytes, secret, notUtf8(secret, random(3)), word(random(5), pool), word(random(9), units.filter((u) => u <= 0xff))][random(5)]!;
    });
    const binary = pieces.join("") + (round % 10 === 5 ? notUtf8("\ud83d\ude00ab\ud83d\ude00", round % 3) : "");
    for (const text of [binary, binary.slice(1), `${binary}\u0100${binary}`]) {
      expect(r.bytes(text), JSON.stringify({ text, secrets: r.secrets.map((s) => s.value) })).toBe(replaceRuns(text, naiveRuns(text, forms)));
    }
    rounds++;
  }
  expect(rounds).toBe(400);
});

it("a search with cuts finds each occurrence that holds no cut, as trying every position does: one form at a time and by automaton", () => {
  let seed = 11;
  const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
  const word = (n: number, letters: string) => Array.from({ length: n }, () => letters[random(letters.length)]).join("");
  for (let round = 0; round < 600; round++) {
    const letters = "abc".slice(0, 1 + random(3));
    const count = random(2) ? 1 + random(FEW_FORMS) : FEW_FORMS + 1 + random(20);
    // Forms that repeat a short part (searched by their repeats) and others.
    const forms = [...new Set(Array.from({ length: count }, () => (random(2) ? word(1 + random(3), letters).repeat(2 + random(4)) : word(2 + random(8), letters))))];
    const text = Array.from({ length: 1 + random(6) }, () => (random(2) ? forms[random(forms.length)]!.repeat(1 + random(4)) : word(random(12), letters))).join("");
    const cuts = Int32Array.from(new Set(Array.from({ length: random(4) }, () => random(text.length + 1)))).sort();
    const expected = naiveRuns(text, forms).length === 0 ? [] : naiveRuns(text, forms, cuts);
    expect(runsOf(text, forms, cuts), JSON.stringify({ text, forms, cuts: [...cuts] })).toEqual(expected);
  }
  // A repeat far longer than a form, followed many units at a time, stops at a cut too.
  const long = "a".repeat(20_000);
  for (const forms of [["aaaaaa"], Array.from({ length: 20 }, (_, i) => "a".repeat(6 + i))]) {
    expect(runsOf(long, forms, Int32Array.of(9000, 9003))).toEqual([[0, 9000], [9004, 20_000]]);
  }
});

