#!/usr/bin/env node
/**
 * `node bench/yield-cost.mjs` (Node >= 22): bundles bench/yield-cost.ts with esbuild (it imports
 * the sandbox's TypeScript) into a temporary file and runs it. Prints the CPU cost of the QuickJS
 * executor's yields; see that file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const dir = mkdtempSync(join(tmpdir(), "weft-yield-cost-"));
const out = join(dir, "yield-cost.mjs");
try {
  await build({ entryPoints: ["bench/yield-cost.ts"], bundle: true, platform: "node", format: "esm", outfile: out, logLevel: "error" });
  await import(pathToFileURL(out).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
