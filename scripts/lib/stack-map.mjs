// @ts-check
/**
 * Readable stacks for `npm start`: frames that point into wrangler's bundle
 * (`.wrangler/tmp/dev-XXX/worker.js:LINE:COL`) are mapped through the bundle's source map to the
 * source file and line, and the copy of agents/ the bundle imports is shown as agents/. Under a
 * failed tool call's line (`weft: tool <name> call <id> of thread <threadId> failed: ...`), weft's own frames are
 * dropped, so the stack ends at your code. The same mapping serves the Worker over loopback
 * ({@link startStackMapper}), so a call record's `stack` read over HTTP names the source too.
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { SourceMap } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";
import { bannerOnce } from "./dev-banner.mjs";

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
    // Only this project's own bundles: a stack's text may come from a tool, and names no other file.
    if (!path.resolve(bundle).startsWith(path.join(root, ".wrangler", "tmp") + path.sep)) return whole;
    const entry = mapOf(bundle)?.findEntry(Number(l) - 1, Number(c) - 1);
    if (!entry || !("originalSource" in entry) || !entry.originalSource) return whole;
    return `${shown(root, bundle, entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
  // wrangler maps some stacks itself, to absolute file:// URLs: show those relative too.
  const prefix = `file://${root.split(path.sep).join("/")}/`;
  return mapped.split(prefix).join("").replace(/(^|[\s(])src\/generated\/agents\//g, "$1agents/");
}

/**
 * Copies a stream line by line, mapping frames; drops weft's own frames under a failed call's line, and
 * the development-mode banner after its first showing (scripts/lib/dev-banner.mjs).
 * @param {string} root
 * @param {NodeJS.ReadableStream} from
 * @param {NodeJS.WritableStream} to
 */
export function relay(root, from, to) {
  let inFailure = false;
  const banner = bannerOnce();
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on("line", (raw) => {
    const line = mapLine(root, raw);
    const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
    if (/^weft: tool \S+ call \S+ of thread \S+ failed: /.test(plain)) inFailure = true;
    else if (inFailure && plain.trim() === "") return; // wrangler's blank line before the frames
    else if (!/^\s+at /.test(plain)) inFailure = false;
    else if (inFailure && /[\s(]src\//.test(plain)) return;
    for (const out of banner(line, plain)) to.write(`${out}\n`);
  });
  lines.on("close", () => banner.flush().forEach((out) => to.write(`${out}\n`)));
}

/**
 * A whole stack with every frame of this project's bundle mapped to its source (no frame dropped).
 * @param {string} root
 * @param {string} stack
 */
export function mapStack(root, stack) {
  return stack
    .split("\n")
    .map((line) => mapLine(root, line))
    .join("\n");
}

/** Stacks one request may carry, and bytes of its body: a page of call records at most. */
const MAX_STACKS = 1000;
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Serves {@link mapStack} on a loopback port for the Worker (`npm start` passes the URL as
 * `WEFT_DEV_STACK_MAPPER`; src/http/source-stacks.ts): `POST /` with `{ stacks: string[] }`
 * answers `{ stacks: string[] }`, each mapped; anything else is a 4xx.
 * @param {string} root the project folder whose `.wrangler/tmp/` bundles are mapped
 * @returns {Promise<{ url: string, close: () => void }>}
 */
export function startStackMapper(root) {
  const server = createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/") return void res.writeHead(404).end();
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on("data", (/** @type {Buffer} */ chunk) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const stacks = body?.stacks;
        if (!Array.isArray(stacks) || stacks.length > MAX_STACKS || !stacks.every((s) => typeof s === "string")) return void res.writeHead(400).end();
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ stacks: stacks.map((s) => mapStack(root, s)) }));
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (!address || typeof address === "string") return reject(new Error("the stack mapper has no port"));
      server.unref();
      resolve({ url: `http://127.0.0.1:${address.port}/`, close: () => server.close() });
    });
  });
}
