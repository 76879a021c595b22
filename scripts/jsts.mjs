#!/usr/bin/env node
// @ts-check
/**
 * `npm run jsts`: the official JSON Schema Test Suite (draft 2020-12, ../shared/data/json-schema-test-suite)
 * through weft's JSON Schema path (test/jsts/suite.ts, bundled with esbuild and run in Node).
 * Prints `json-schema: <agree>/<total> agree, <refused> refused at definition, <false accepts> false accepts`
 * and one line per refused keyword; `--verbose` also lists every disagreement.
 * @module
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUITE = path.resolve(ROOT, "../shared/data/json-schema-test-suite");

/** @param {string} dir @returns {Promise<string[]>} every file below `dir`, relative to it */
async function walk(dir) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

const tmp = await mkdtemp(path.join(os.tmpdir(), "weft-jsts-"));
try {
  const outfile = path.join(tmp, "suite.mjs");
  await esbuild.build({ entryPoints: [path.join(ROOT, "test/jsts/suite.ts")], bundle: true, platform: "node", format: "esm", outfile, logLevel: "warning" });
  const { runSuite, summaryLine } = await import(pathToFileURL(outfile).href);
  /** @type {Record<string, unknown>} */
  const files = {};
  for (const name of (await readdir(SUITE)).filter((f) => f.endsWith(".json")).sort()) {
    files[name] = JSON.parse(await readFile(path.join(SUITE, name), "utf8"));
  }
  /** @type {Record<string, unknown>} */
  const remotes = {};
  for (const rel of await walk(path.join(SUITE, "remotes"))) {
    if (rel.endsWith(".json")) remotes[rel.split(path.sep).join("/")] = JSON.parse(await readFile(path.join(SUITE, "remotes", rel), "utf8"));
  }
  const result = runSuite(files, remotes);
  if (process.argv.includes("--verbose")) {
    for (const line of result.disagreements) console.log(line);
    console.log(`note: ${result.bundled} cases use documents from remotes/, bundled into the schema's $defs before weft sees it`);
  }
  console.log(summaryLine(result));
  for (const line of result.refusedKeywords) console.log(line);
  process.exitCode = result.falseAccepts === 0 && result.agree >= 0.98 * result.total ? 0 : 1;
} finally {
  await rm(tmp, { recursive: true, force: true });
}
