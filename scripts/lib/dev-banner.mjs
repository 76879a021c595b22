// @ts-check
/**
 * The development-mode banner (src/runtime.ts) once per `npm start`: the Worker prints it each
 * time wrangler reloads it, and after a save with a broken rule the repeat, with wrangler's
 * `▲ [WARNING]` header, pushed the line naming the problem out of view.
 * @module
 */

/** The banner's first line, and its other lines (`*** `, indented by wrangler). */
const FIRST = /^\s*\*\*\* weft: DEVELOPMENT MODE/;
const MORE = /^\s*\*\*\* /;
/** wrangler's header above a warning, on a line of its own. */
const HEADER = /^▲ \[WARNING\]\s*$/;

/**
 * A line filter that passes every line but a repeated banner with its header and blank lines.
 * Call it with each line and its text without colour codes; it returns the lines to write now
 * (a header is held until the line after it says whether it heads a repeat). `flush()` returns
 * what is held at the end of the stream.
 */
export function bannerOnce() {
  let shown = false;
  let skipping = false;
  /** @type {string[]} */
  let held = [];
  /** @param {string} line @param {string} plain @returns {string[]} */
  const filter = (line, plain) => {
    if (skipping) {
      if (MORE.test(plain) || plain.trim() === "") return [];
      skipping = false;
    }
    if (held.length === 0 && HEADER.test(plain)) {
      held = [line];
      return [];
    }
    if (held.length > 0 && plain.trim() === "") {
      held.push(line);
      return [];
    }
    const before = held;
    held = [];
    if (FIRST.test(plain)) {
      if (shown) {
        skipping = true;
        return [];
      }
      shown = true;
    }
    return [...before, line];
  };
  const flush = () => {
    const out = held;
    held = [];
    return out;
  };
  return Object.assign(filter, { flush });
}
