/**
 * A bundle as wrangler's dev build lays it out (`.wrangler/tmp/dev-*\/worker.js` with its source
 * map) of one tool under agents/ that throws, and the stack frame its `throw` gives.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

/** Writes `tool` as agents/tools/thrower.ts's generated copy under `root`, bundles it, and returns the bundle's frame of its `throw`. */
export async function throwerFrame(root: string, tool: string): Promise<string> {
  const source = path.join(root, "src/generated/agents/tools/thrower.ts");
  mkdirSync(path.dirname(source), { recursive: true });
  writeFileSync(source, tool);
  const bundle = path.join(root, ".wrangler/tmp/dev-abc/worker.js");
  await build({ entryPoints: [source], bundle: true, format: "esm", sourcemap: true, outfile: bundle, logLevel: "error" });
  const lines = readFileSync(bundle, "utf8").split("\n");
  const line = lines.findIndex((l) => l.includes('throw new Error("boom")'));
  return `    at Object.execute (file://${bundle}:${line + 1}:${lines[line]!.indexOf("throw") + 1})`;
}
