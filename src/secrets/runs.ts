/**
 * Where secret text is in a text: the stretches covered by occurrences of a redactor's forms.
 * @module
 */
import { type PooledAutomaton, pooledAutomaton } from "./automaton-pool.js";

/** Forms looked for one at a time (an `indexOf` each is faster for so few); more are looked for in one pass, by an automaton (src/secrets/automaton.ts). */
export const FEW_FORMS = 16;

/**
 * Units of forms one automaton holds at most (about 11 bytes of memory each, so about 6 MB): past
 * them, the longest forms are looked for one at a time. A user's secrets may take megabytes, each
 * thread holds a redactor for them, and an isolate holds 128 MB: the isolate's automata together
 * hold at most `ISOLATE_AUTOMATON_UNITS` (src/secrets/automaton-pool.ts), one per set of forms.
 */
export const AUTOMATON_UNITS = 1 << 19;

/**
 * How a forms array is searched: the shortest forms by an automaton (none past the isolate's
 * budget), the others one at a time; `all` of them so once the pool took the automaton's room back.
 */
interface Search {
  pooled: PooledAutomaton | null;
  rest: readonly string[];
  all: readonly string[];
}

/** Each forms array's search (a redactor's arrays: made at its first use, kept with it). */
const searches = new WeakMap<readonly string[], Search>();

/**
 * The stretches `[start, end)` of `text` covered by an occurrence of any of `forms` (overlapping
 * occurrences too), merged where they overlap, in order. Touching stretches stay apart; an
 * occurrence that holds a position of `cuts` (ascending) does not count. Past
 * {@link FEW_FORMS} forms, time grows with the text's length and not with how many forms there are
 * (up to {@link AUTOMATON_UNITS} units of them, while the isolate's automata have room): every line
 * the isolate logs passes every thread's redactor, so one user's many secrets would slow every other
 * user's lines.
 */
export function runsOf(text: string, forms: readonly string[], cuts?: Int32Array): Array<[number, number]> {
  if (forms.length <= FEW_FORMS) return runsEach(text, forms, cuts);
  let search = searches.get(forms);
  if (!search) {
    // Ties in code unit order: the same set takes the same forms, so it can share the isolate's automaton.
    const bySize = [...forms].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    let units = 0;
    let taken = 0;
    while (taken < bySize.length && units + bySize[taken]!.length <= AUTOMATON_UNITS) units += bySize[taken++]!.length;
    const made = pooledAutomaton(bySize, taken);
    searches.set(forms, (search = { pooled: made.pooled, rest: bySize.slice(made.taken), all: bySize }));
  }
  if (!search.pooled) return runsEach(text, search.rest, cuts);
  const automaton = search.pooled.automaton;
  if (!automaton) {
    // Its room was taken for a smaller set (automaton-pool.ts): every form one at a time from now on.
    searches.set(forms, { pooled: null, rest: search.all, all: search.all });
    return runsEach(text, search.all, cuts);
  }
  const runs = automaton.runs(text, cuts);
  return search.rest.length === 0 ? runs : merged([...runs, ...runsEach(text, search.rest, cuts)]);
}

/** Each form's smallest period, by the forms array it is in (a redactor's, made once with it). */
const periodsOf = new WeakMap<readonly string[], Int32Array>();

/**
 * {@link runsOf} one form at a time: an `indexOf` over the text for each, fastest for a few. Time and
 * memory grow with the text and the forms, not with how a form repeats itself: the user sets both
 * a secret ("aaaaaa") and the text, and searching again from each occurrence, or for a long form
 * that repeats a short part, compared the form's length at each character.
 */
export function runsEach(text: string, forms: readonly string[], cuts?: Int32Array): Array<[number, number]> {
  let periods = periodsOf.get(forms);
  if (!periods) periodsOf.set(forms, (periods = periodsOfForms(forms)));
  const spans: Array<[number, number]> = [];
  const cutFrom = (at: number) => (cuts ? firstCut(cuts, at) : Infinity);
  forms.forEach((f, i) => {
    const p = periods[i]!;
    if (2 * p > f.length) {
      // Occurrences overlap by less than half the form: each is searched for, those that overlap kept as one stretch.
      let run: [number, number] | null = null;
      for (let at = text.indexOf(f); at !== -1; at = text.indexOf(f, at + 1)) {
        if (cutFrom(at) < at + f.length) continue;
        if (run && at < run[1]) run[1] = at + f.length;
        else spans.push((run = [at, at + f.length]));
      }
      return;
    }
    // A form that repeats its first `p` characters (u) starts with uu, which is searched for instead;
    // from each, how far the text goes on repeating u (many at a time, then one, then part of one)
    // says where the form occurs: there, and every `p` on while it fits.
    const u = f.slice(0, p);
    const us = u.repeat(Math.max(1, Math.floor(4096 / p)));
    for (let at = text.indexOf(u + u); at !== -1; ) {
      // The repeat is followed up to a cut at most: past it, occurrences begin after the cut.
      const cut = cutFrom(at);
      if (cut < at + 2 * p) {
        at = text.indexOf(u + u, cut + 1);
        continue;
      }
      let end = at + 2 * p;
      while (end + us.length <= cut && text.slice(end, end + us.length) === us) end += us.length;
      while (end + p <= cut && text.slice(end, end + p) === u) end += p;
      let part = 0;
      while (part < p && end + part < cut && text[end + part] === u[part]) part++;
      if (end + part - at >= f.length) spans.push([at, at + Math.floor((end + part - at - f.length) / p) * p + f.length]);
      // uu occurs again at a period on only inside the repeat: the next is past its last whole u but one.
      at = text.indexOf(u + u, end + part === cut ? cut + 1 : end - 2 * p + 1);
    }
  });
  return merged(spans);
}

/** The first of `cuts` (ascending) at `at` or after, Infinity for none. */
function firstCut(cuts: Int32Array, at: number): number {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cuts[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo < cuts.length ? cuts[lo]! : Infinity;
}

/** Stretches in order, those that overlap (not those that only touch) made one. */
export function merged(spans: Array<[number, number]>): Array<[number, number]> {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [spans[0]!];
  for (const [s, e] of spans.slice(1)) {
    const last = out[out.length - 1]!;
    if (s < last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/**
 * Each form's smallest period (its length when it has none shorter): the form less its longest
 * proper prefix that is also a suffix. One table, as long as the longest form, serves them all.
 * Only a period up to half the form is used: past it, the form's length stands for it.
 */
function periodsOfForms(forms: readonly string[]): Int32Array {
  const border = new Int32Array(forms.reduce((n, f) => Math.max(n, f.length), 0));
  return Int32Array.from(forms, (f) => {
    // A period p up to half the form has the form's first half again at p: most forms do not.
    const at = f.indexOf(f.slice(0, f.length - (f.length >> 1)), 1);
    if (at === -1 || at > f.length >> 1) return f.length;
    let k = 0;
    for (let i = 1; i < f.length; i++) {
      const c = f.charCodeAt(i);
      while (k > 0 && c !== f.charCodeAt(k)) k = border[k - 1]!;
      if (c === f.charCodeAt(k)) k++;
      border[i] = k;
    }
    return f.length - (f.length > 0 ? k : 0);
  });
}
