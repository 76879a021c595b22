#!/usr/bin/env node
/**
 * `npm run bench:redact` (`node bench/redact-cost.mjs`, Node >= 22): bundles bench/redact-cost.ts with esbuild (it imports
 * src/secrets/'s TypeScript) into a temporary file and runs it. Prints what redacting 1 MB costs
 * as a redactor holds 1 to 1000 secrets, before and after the one-pass search; see that file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const dir = mkdtempSync(join(tmpdir(), "weft-redact-cost-"));
const out = join(dir, "redact-cost.mjs");
try {
  await build({ entryPoints: ["bench/redact-cost.ts"], bundle: true, platform: "node", format: "esm", outfile: out, logLevel: "error" });
  await import(pathToFileURL(out).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
