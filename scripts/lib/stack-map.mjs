// @ts-check
/**
 * Readable stacks for `npm start`: frames that point into wrangler's bundle
 * (`.wrangler/tmp/dev-XXX/worker.js:LINE:COL`) are mapped through the bundle's source map to the
 * source file and line, and the copy of agents/ the bundle imports is shown as agents/. Under a
 * failed tool call's line (`weft: tool <name> call <id> failed: ...`), weft's own frames are
 * dropped, so the stack ends at your code.
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";

/** A bundle frame: `file:///.../.wrangler/tmp/dev-XXX/worker.js:LINE:COL`. */
const BUNDLE_FRAME = /(?:file:\/\/)?(\/[^\s()]*\.wrangler\/tmp\/[^\s()/]+\/[^\s()/]+\.js):(\d+):(\d+)/g;

/** @type {Map<string, { mtimeMs: number, map: SourceMap | null }>} */
const maps = new Map();

/** The source map of a bundle, re-read when wrangler rebuilt it. @param {string} bundle */
function mapOf(bundle) {
  let mtimeMs = 0;
  try {
    mtimeMs = statSync(`${bundle}.map`).mtimeMs;
  } catch {
    return null;
  }
  const cached = maps.get(bundle);
  if (cached?.mtimeMs === mtimeMs) return cached.map;
  let map = null;
  try {
    map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, "utf8")));
  } catch {
    map = null;
  }
  maps.set(bundle, { mtimeMs, map });
  return map;
}

/** A source path as the project shows it: relative to `root`, with the bundled copy of agents/ as agents/. */
function shown(/** @type {string} */ root, /** @type {string} */ bundle, /** @type {string} */ source) {
  const abs = source.startsWith("file://") ? new URL(source).pathname : path.resolve(path.dirname(bundle), source);
  return path.relative(root, abs).split(path.sep).join("/").replace(/^src\/generated\/agents\//, "agents/");
}

/**
 * Rewrites every bundle frame of a line to its source position; frames it cannot map stay as they are.
 * @param {string} root the project folder paths are shown relative to
 * @param {string} line
 */
export function mapLine(root, line) {
  const mapped = line.replace(BUNDLE_FRAME, (whole, bundle, l, c) => {
    const entry = mapOf(bundle)?.findEntry(Number(l) - 1, Number(c) - 1);
    if (!entry || !("originalSource" in entry) || !entry.originalSource) return whole;
    return `${shown(root, bundle, entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
  // wrangler maps some stacks itself, to absolute file:// URLs: show those relative too.
  const prefix = `file://${root.split(path.sep).join("/")}/`;
  return mapped.split(prefix).join("").replace(/(^|[\s(])src\/generated\/agents\//g, "$1agents/");
}

/**
 * Copies a stream line by line, mapping frames; drops weft's own frames under a failed call's line.
 * @param {string} root
 * @param {NodeJS.ReadableStream} from
 * @param {NodeJS.WritableStream} to
 */
export function relay(root, from, to) {
  let inFailure = false;
  createInterface({ input: from, crlfDelay: Infinity }).on("line", (raw) => {
    const line = mapLine(root, raw);
    const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
    if (/^weft: tool \S+ call \S+ failed: /.test(plain)) inFailure = true;
    else if (inFailure && plain.trim() === "") return; // wrangler's blank line before the frames
    else if (!/^\s+at /.test(plain)) inFailure = false;
    else if (inFailure && /[\s(]src\//.test(plain)) return;
    to.write(`${line}\n`);
  });
}
