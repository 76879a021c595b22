/**
 * The automata of an isolate (src/secrets/automaton.ts): one per set of strings, shared by every
 * redactor that looks for that set, and all of them together bounded. Several Durable Objects
 * (threads of many users) share an isolate and its 128 MB; one user's threads, each holding two
 * automata of their secrets (its redactor's and its log redactor's), would otherwise take it all
 * and have it reset, taking other users' threads down with it. Nor may one user's large sets hold
 * the budget against another's smaller one: a set that does not fit takes the room of larger ones.
 * @module
 */
import { Automaton } from "./automaton.js";

/**
 * Units all live automata of an isolate hold together at most: 1.5 Mi, about 17 MB. An automaton
 * takes 11 bytes a UTF-16 code unit of its strings, at most 40 a string and 1 KiB more (see
 * `Automaton.bytes`), so it counts its strings' units, `STRING_UNITS` a string and
 * `AUTOMATON_BASE_UNITS` (many small automata cost their tables too). A set already held
 * costs nothing more; past the budget a new automaton takes the room of live automata larger than
 * itself (largest first: see {@link pooledAutomaton}), and what still does not fit holds only the
 * shortest strings that fit, the others looked for one at a time (src/secrets/runs.ts), which finds
 * the same stretches.
 */
export const ISOLATE_AUTOMATON_UNITS = 3 << 19;

/** Units a string counts for beyond its own (its share of the edge table, 40 bytes at most). */
const STRING_UNITS = 4;
/** Units an automaton counts for beyond its strings (its root's table, 1 KiB). */
const AUTOMATON_BASE_UNITS = 96;

/**
 * One automaton and the strings it was made of (sorted), held strongly by each search that uses it;
 * `units` what it counts against the budget. `automaton` is null once the pool took its room back
 * for a smaller set: its tables are then the collector's, and its searches look for its strings one
 * at a time.
 */
export interface PooledAutomaton {
  automaton: Automaton | null;
  readonly strings: readonly string[];
  readonly units: number;
}

interface Entry {
  readonly ref: WeakRef<PooledAutomaton>;
  readonly units: number;
  readonly key: string;
  /** Whether its units were given back (its room taken), before the collector took it. */
  returned: boolean;
}

/** By the hash of its strings, each automaton that may still be alive, to share. */
const byKey = new Map<string, Entry>();
/** Units of the automata not yet collected: each gives its units back when the collector takes it. */
let heldUnits = 0;
const collected = new FinalizationRegistry<Entry>((entry) => {
  if (!entry.returned) heldUnits -= entry.units;
  if (byKey.get(entry.key) === entry) byKey.delete(entry.key);
});

/**
 * Units the isolate's automata hold (see {@link ISOLATE_AUTOMATON_UNITS}), until the garbage
 * collector takes one no redactor holds any more.
 */
export function automatonUnitsHeld(): number {
  return heldUnits;
}

/**
 * An automaton of the first `taken` of `bySize` (shortest first, ties in code unit order, so the
 * same set gives the same strings whatever order it came in): the one the isolate holds for that
 * set when there is one, else a new one of as many of them as the isolate's budget has room for.
 * When `bySize`'s first `taken` do not fit, the room of live automata of more units than theirs is
 * taken, largest first (a user's sets of megabytes cannot keep another user's smaller set one at a
 * time, five to ten times slower a text, for as long as they are held); those that still do not fit
 * are taken fewer. Answers how many strings it holds (0, and no automaton, when the budget is spent).
 */
export function pooledAutomaton(bySize: readonly string[], taken: number): { pooled: PooledAutomaton | null; taken: number } {
  let strings = bySize.slice(0, taken).sort();
  let key = keyOf(strings);
  const held = heldFor(key, strings);
  if (held) return { pooled: held, taken };
  let units = AUTOMATON_BASE_UNITS;
  for (let i = 0; i < taken; i++) units += bySize[i]!.length + STRING_UNITS;
  let room = ISOLATE_AUTOMATON_UNITS - heldUnits;
  if (units > room) {
    takeRoom(units - room, units);
    room = ISOLATE_AUTOMATON_UNITS - heldUnits;
  }
  if (units > room) {
    while (taken > 0 && units > room) units -= bySize[--taken]!.length + STRING_UNITS;
    if (taken === 0) return { pooled: null, taken };
    strings = bySize.slice(0, taken).sort();
    key = keyOf(strings);
    const fits = heldFor(key, strings);
    if (fits) return { pooled: fits, taken };
  }
  const pooled: PooledAutomaton = { automaton: new Automaton(strings), strings, units };
  const entry: Entry = { ref: new WeakRef(pooled), units, key, returned: false };
  heldUnits += units;
  collected.register(pooled, entry);
  byKey.set(key, entry);
  return { pooled, taken };
}

/**
 * Gives back the room of live automata of more than `than` units, largest first, until `need` units
 * are free or none is left: each one's searches then look for its strings one at a time (runs.ts).
 */
function takeRoom(need: number, than: number): void {
  const larger: Array<{ entry: Entry; pooled: PooledAutomaton }> = [];
  for (const entry of byKey.values()) {
    const pooled = entry.ref.deref();
    if (pooled && entry.units > than) larger.push({ entry, pooled });
  }
  larger.sort((a, b) => b.entry.units - a.entry.units);
  let freed = 0;
  for (const { entry, pooled } of larger) {
    if (freed >= need) break;
    pooled.automaton = null;
    entry.returned = true;
    heldUnits -= entry.units;
    freed += entry.units;
    byKey.delete(entry.key);
  }
}

/** The automaton the isolate holds for exactly `strings` (sorted; `key` their {@link keyOf}), if any. */
function heldFor(key: string, strings: readonly string[]): PooledAutomaton | undefined {
  const held = byKey.get(key)?.ref.deref();
  if (held?.automaton === null) return undefined;
  // A hash is no proof (one could be made to collide): the strings are compared.
  return held && held.strings.length === strings.length && held.strings.every((s, i) => s === strings[i]) ? held : undefined;
}

/** A hash of sorted strings (cyrb53-style, two lanes), each string's length in it so no two lists join alike. */
function keyOf(strings: readonly string[]): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const mix = (unit: number) => {
    h1 = Math.imul(h1 ^ unit, 2654435761);
    h2 = Math.imul(h2 ^ unit, 1597334677);
  };
  for (const s of strings) {
    mix(s.length);
    mix(s.length >>> 16);
    for (let i = 0; i < s.length; i++) mix(s.charCodeAt(i));
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${strings.length}:${(h1 >>> 0).toString(16)}:${(h2 >>> 0).toString(16)}`;
}
