/**
 * Ids weft makes for calls, turns and flows.
 * @module
 */

/** Width of the time part: milliseconds since 1970 in base 36 fit in 9 digits until the year 5188. */
const TIME_DIGITS = 9;

/** Two hex digits for each byte value. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/**
 * Random bytes drawn from `crypto.getRandomValues` a block at a time, each handed out once: one
 * call into the runtime's generator per 4 KiB of ids instead of one UUID (and its string work)
 * per id. Filled on first use: the Workers runtime makes no random values outside a request.
 */
const pool = new Uint8Array(4096);
let drawn = pool.length;

/** The time part of the last id made, and its millisecond (Workers' clock holds still during synchronous work). */
let lastMs = -1;
let lastTime = "";

/** `digits` random hex digits (4 random bits each). */
function randomHex(digits: number): string {
  let out = "";
  for (let i = 0; i < digits; i += 2) {
    if (drawn === pool.length) {
      crypto.getRandomValues(pool);
      drawn = 0;
    }
    out += HEX[pool[drawn++]!]!;
  }
  return out.length === digits ? out : out.slice(0, digits);
}

/**
 * A new id `<prefix>_<time><random>`: `<time>` is `Date.now()` in fixed-width base 36, so ids
 * made later sort later, and `<random>` is `randomHex` hex digits (unique among ids of the same
 * millisecond). Ids key SQLite indexes (a call's or turn's primary key): an increasing key lands
 * next to the previous one at the index's right edge, on a page already in the cache, where a
 * random key reads and dirties a page anywhere in an index that grows with the thread's age.
 */
export function orderedId(prefix: string, randomDigits: number): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = now.toString(36).padStart(TIME_DIGITS, "0");
  }
  return `${prefix}_${lastTime}${randomHex(randomDigits)}`;
}

/**
 * User ids weft keeps for itself start with this (`weft:schedules`, the owner of file schedules'
 * threads): no credential may name one, so no person is such a user.
 */
export const RESERVED_USER_PREFIX = "weft:";

/** Whether `userId` is one weft keeps for itself ({@link RESERVED_USER_PREFIX}). */
export const isReservedUserId = (userId: string) => userId.startsWith(RESERVED_USER_PREFIX);
