#!/usr/bin/env node
// @ts-check
/**
 * `npm run build:client`: builds `weft/client` and `weft/react` as a package another project can
 * install (`npm pack ./dist/weft-client` gives the tarball), into dist/weft-client/ (git-ignored):
 *
 *   client.js, react.js, chunk-*.js   ESM bundles (esbuild) of src/client/ and src/react/, with
 *                                     partysocket and react left as imports
 *   types/                            declarations (tsc) of those entries and of the server's
 *                                     types they are typed from (ThreadApi, EventFrame, ...): only
 *                                     the files the entries' declarations reach, which name no
 *                                     Workers-only type (a consumer checks them without Workers types)
 *   package.json                      named `weft`, so `import ... from "weft/client"` reads the
 *                                     same inside and outside this repository
 *
 * The bundle may contain only src/client/, src/react/ and src/socket-token.ts: anything else
 * would be server code shipped to browsers, so the build fails naming the file.
 * @module
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync, readdirSync, rmSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "dist/weft-client");
/**
 * The source files the runtime bundle may contain (what a browser would download): the client, the
 * hook, and the two wire tables they share with the Worker (the socket's token protocol, the
 * built-in event names).
 */
const ALLOWED = /^src\/(client\/|react\/|socket-token\.ts$|events\.ts$)/;

const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
/** A dependency's version range exactly as weft's own package.json pins it. */
function rangeOf(/** @type {string} */ name) {
  const range = pkg.dependencies?.[name] ?? pkg.devDependencies?.[name];
  if (!range) throw new Error(`build:client: package.json names no version of ${name}`);
  return range;
}

rmSync(OUT, { recursive: true, force: true });

// One chunk shared by both entries, so weft/react's WeftClientError is weft/client's (instanceof holds).
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { client: "src/client/index.ts", react: "src/react/index.ts" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outdir: OUT,
  external: ["partysocket", "partysocket/*", "react"],
  metafile: true,
  logLevel: "error",
});
const strays = Object.keys(result.metafile.inputs).filter((f) => !ALLOWED.test(f));
if (strays.length > 0) {
  throw new Error(`build:client: the client bundle reaches files outside src/client/, src/react/, src/socket-token.ts and src/events.ts: ${strays.join(", ")}`);
}

// Declarations of the entries and of every server type they name (types only: nothing runs).
const TSC = path.join(ROOT, "node_modules/typescript7/bin/tsc");
execFileSync(process.execPath, [TSC, "-p", path.join(ROOT, "tsconfig.client.json")], { cwd: ROOT, stdio: "inherit" });

// tsc emits a declaration for every file the entries import, code too; ship only those the entries'
// declarations reach, as tsc itself resolves them from the entries (a consumer's tsc loads no other).
const TYPES = path.join(OUT, "types");
const entries = ["client", "react"].map((name) => path.join(TYPES, name, "index.d.ts"));
const listed = execFileSync(process.execPath, [TSC, "--ignoreConfig", "--listFilesOnly", "--module", "nodenext", "--types", "", "--lib", "es2023,dom", ...entries], { cwd: OUT, encoding: "utf8" });
const reached = new Set(listed.split("\n").filter((f) => f.startsWith(`${TYPES}${path.sep}`)).map((f) => path.resolve(f)));
if (!entries.every((e) => reached.has(e))) throw new Error(`build:client: tsc listed neither entry's declarations:\n${listed}`);
for (const file of readdirSync(TYPES, { recursive: true, encoding: "utf8" })) {
  const abs = path.join(TYPES, file);
  if (file.endsWith(".d.ts") && !reached.has(abs)) rmSync(abs);
}
// Folders left empty by the pruning, deepest first.
for (const dir of readdirSync(TYPES, { recursive: true, encoding: "utf8" }).map((d) => path.join(TYPES, d)).sort().reverse()) {
  if (statSync(dir).isDirectory() && readdirSync(dir).length === 0) rmdirSync(dir);
}

const entry = (/** @type {string} */ name) => ({ types: `./types/${name}/index.d.ts`, default: `./${name}.js` });
const manifest = {
  name: "weft",
  version: pkg.version,
  description: "Typed HTTP and WebSocket client for a weft Worker (weft/client) and its React hook (weft/react)",
  type: "module",
  license: pkg.license,
  sideEffects: false,
  exports: { "./client": entry("client"), "./react": entry("react"), "./package.json": "./package.json" },
  engines: pkg.engines,
  // zod only for types: a posted message's content parts are typed from weft's zod schema.
  dependencies: { partysocket: rangeOf("partysocket"), zod: rangeOf("zod") },
  peerDependencies: { react: pkg.peerDependencies.react },
  peerDependenciesMeta: { react: { optional: true } },
};
writeFileSync(path.join(OUT, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(path.join(ROOT, "LICENSE"), path.join(OUT, "LICENSE"));
writeFileSync(
  path.join(OUT, "README.md"),
  "# weft (client)\n\n`weft/client` and `weft/react`, built from the weft repository by `npm run build:client`.\n" +
    "See the repository's docs/client.md, \"From another project\".\n",
);
console.log(`build:client: ${path.relative(ROOT, OUT)} (npm pack ./${path.relative(ROOT, OUT)} makes the tarball)`);
