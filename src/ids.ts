/**
 * Ids weft makes for calls, turns and flows.
 * @module
 */

/** Width of the time part: milliseconds since 1970 in base 36 fit in 9 digits until the year 5188. */
const TIME_DIGITS = 9;

/**
 * A new id `<prefix>_<time><random>`: `<time>` is `Date.now()` in fixed-width base 36, so ids
 * made later sort later, and `<random>` is `randomHex` hex digits (unique among ids of the same
 * millisecond). Ids key SQLite indexes (a call's or turn's primary key): an increasing key lands
 * next to the previous one at the index's right edge, on a page already in the cache, where a
 * random key reads and dirties a page anywhere in an index that grows with the thread's age.
 */
export function orderedId(prefix: string, randomHex: number): string {
  const time = Date.now().toString(36).padStart(TIME_DIGITS, "0");
  return `${prefix}_${time}${crypto.randomUUID().replaceAll("-", "").slice(0, randomHex)}`;
}
