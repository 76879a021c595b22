/**
 * What redaction costs as a redactor holds more secrets, run by `node bench/redact-cost.mjs`: 1 MB
 * of text (log-like prose, and text full of near misses: the secrets' shared prefix) through
 * `Redactor.plain` as it was (src/secrets/runs.ts `runsEach`: one `indexOf` per form) and as it
 * is (`runsOf`: one pass of an automaton past `FEW_FORMS` forms), for 1 to 1000 secrets, with the
 * automaton's making time and memory; then the
 * two searches side by side at small counts (where `FEW_FORMS` comes from), over 1 MB and over
 * 10 000 lines of 100 characters. Prints CPU milliseconds (median of runs); asserts nothing.
 */
import { Automaton } from "../src/secrets/automaton.js";
import { Redactor, replaceRuns } from "../src/secrets/redact.js";
import { AUTOMATON_UNITS, FEW_FORMS, runsEach } from "../src/secrets/runs.js";

const RUNS = 5;
let seed = 42;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const token = (n: number) => Array.from({ length: n }, () => ALNUM[random(ALNUM.length)]).join("");
/** Secrets as providers make them: a shared prefix, then 40 (or `chars`) random characters. */
const secrets = (count: number, chars = 40) => Array.from({ length: count }, (_, i) => ({ name: `KEY_${i}`, value: `sk-proj-${token(chars)}` }));

const WORDS = ["the", "thread", "tool", "call", "finished", "in", "ms", "status", "ok", "request", "id", "user", "model", "step", "sk-proj", "error", "{", "}", '"', ":"];
const prose = (chars: number) => {
  let out = "";
  while (out.length < chars) out += WORDS[random(WORDS.length)] + (random(12) === 0 ? "\n" : " ");
  return out.slice(0, chars);
};
/** Near misses: every word starts as a secret does. */
const nearMisses = (chars: number) => {
  let out = "";
  while (out.length < chars) out += `sk-proj-${token(random(12))} `;
  return out.slice(0, chars);
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function time(f: () => unknown): number {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = cpuMs();
    f();
    xs.push(cpuMs() - start);
  }
  return median(xs);
}
const ms = (x: number) => x.toFixed(1).padStart(9);

const MB = 1024 * 1024;
/** Text outside Latin-1: each unit looked up in the hashed table, past the root's table of 256. */
const cjk = (chars: number) => Array.from({ length: chars }, () => String.fromCharCode(0x4e00 + random(3000))).join("");
const texts: Record<string, string> = { prose: prose(MB), "near misses": nearMisses(MB), cjk: cjk(MB) };
console.log(`Redactor.plain over 1 MB (CPU ms, median of ${RUNS}); FEW_FORMS = ${FEW_FORMS}, AUTOMATON_UNITS = ${AUTOMATON_UNITS} (1000 x 1008 chars is past it: the longest stay per form)`);
console.log("secrets  chars  text          before (per form)  after (runsOf)  automaton made (ms, MB)");
const cases: Array<[number, number]> = [[1, 40], [10, 40], [100, 40], [1000, 40], [1000, 1000]];
for (const [count, chars] of cases) {
  const held = secrets(count, chars);
  for (const [name, body] of Object.entries(texts)) {
    // A few of the secrets themselves, so there is something to replace.
    const text = body.slice(0, MB - 200) + held.slice(0, 3).map((s) => ` ${s.value}`).join("");
    const r = new Redactor(held);
    const before = time(() => replaceRuns(text, runsEach(text, r.forms)));
    const made = cpuMs();
    r.plain("warm");
    const build = cpuMs() - made;
    // The same automaton again, to read its size (a redactor's is private to runs.ts).
    let units = 0;
    const taken = [...r.forms].sort((a, b) => a.length - b.length).filter((f) => (units += f.length) <= AUTOMATON_UNITS);
    const mb = new Automaton(taken).bytes / MB;
    const after = time(() => r.plain(text));
    if (r.plain(text) !== replaceRuns(text, runsEach(text, r.forms))) throw new Error("the two searches differ");
    const automaton = r.forms.length > FEW_FORMS ? `${build.toFixed(1)}, ${mb.toFixed(1)}` : "-";
    console.log(`${String(count).padStart(7)}  ${String(chars + 8).padStart(5)}  ${name.padEnd(12)}  ${ms(before)}          ${ms(after)}       ${automaton}`);
  }
}

console.log("\nThe two searches side by side (CPU ms, median of 5): 1 MB of prose, and 10 000 lines of 100 characters");
console.log("forms   per form 1MB  automaton 1MB   per form lines  automaton lines");
const lines = Array.from({ length: 10_000 }, () => prose(100));
for (const count of [1, 2, 4, 8, 16, 32, 64]) {
  const forms = secrets(count).map((s) => s.value);
  const automaton = new Automaton(forms);
  const text = texts.prose!;
  const each = time(() => runsEach(text, forms));
  const one = time(() => automaton.runs(text));
  const eachLines = time(() => lines.forEach((l) => runsEach(l, forms)));
  const oneLines = time(() => lines.forEach((l) => automaton.runs(l)));
  console.log(`${String(count).padStart(5)}  ${ms(each)}     ${ms(one)}      ${ms(eachLines)}        ${ms(oneLines)}`);
}

