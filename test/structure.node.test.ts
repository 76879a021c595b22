/**
 * The shape of src/: imports point one way. Every import is read (type-only ones, `export ... from`,
 * `import("...")` with a literal) and the test fails, naming the files, on an import circle, on an
 * import of src/thread/ from a layer below it, and on a port in src/ports/ that is more than small,
 * type-only interfaces. The second half runs the same checks over small trees written here, so each
 * rule is seen to fail.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { circles, describeCircle, importGraph, importsAcross, portProblems, tsFiles } from "./import-graph.node.js";
import { ROOT } from "./sources.node.js";

/**
 * Circles that still exist and are being taken apart (issue 24), each as its set of files. The test
 * checks the list is exact: a new circle fails, and so does a listed one that has changed or gone,
 * so this list only shrinks. Delete an entry when its circle is broken.
 */
const KNOWN_CIRCLES: string[][] = [];

/** The folders below src/thread/ that must never import it. */
const BELOW_THREAD = ["src/run", "src/calls", "src/ports", "src/account", "src/secrets"];

/** Most members a port interface may have. */
const PORT_MEMBERS = 12;

/** Lines src/thread/ (the Durable Object shell and the SQLite ports) stays under. */
const THREAD_LINES = 4000;

/** Lines of every `.ts` file under `dir` (relative to `root`), nested folders included. */
function linesIn(root: string, dir: string): number {
  return tsFiles(root, dir).reduce((sum, file) => sum + readFileSync(path.join(root, file), "utf8").split("\n").length - 1, 0);
}

/** The repository's import graph, read once for the tests that need it. */
let repository: ReturnType<typeof importGraph> | undefined;
const graphOf = (root: string) => (root === ROOT ? (repository ??= importGraph(ROOT)) : importGraph(root));

/** The problems with a tree's circles against the known list: new circles as paths, gone or changed known ones. */
function circleProblems(root: string, known: string[][]): string[] {
  const { files, edges } = graphOf(root);
  const found = circles(files, edges);
  const key = (c: string[]) => [...c].sort().join(" ");
  const knownKeys = new Set(known.map(key));
  const foundKeys = new Set(found.map(key));
  const problems: string[] = [];
  for (const c of found) {
    if (knownKeys.has(key(c))) continue;
    problems.push(`import circle of ${c.length} files:\n${describeCircle(c, edges).map((p) => `  ${p}`).join("\n")}`);
  }
  for (const c of known) {
    if (!foundKeys.has(key(c))) problems.push(`listed in KNOWN_CIRCLES but no longer a circle as listed (remove or update it): ${key(c)}`);
  }
  return problems;
}

describe("src/ imports", () => {
  it("form no circle beyond the known ones, and each known one is still exactly a circle", () => {
    expect(circleProblems(ROOT, KNOWN_CIRCLES)).toEqual([]);
  });

  it(`never reach src/thread/ from ${BELOW_THREAD.join(", ")}`, () => {
    expect(importsAcross(graphOf(ROOT).edges, BELOW_THREAD, "src/thread")).toEqual([]);
  });

  it("never reach src/secrets/ from src/account/ (secrets read the account, not the other way)", () => {
    expect(importsAcross(graphOf(ROOT).edges, ["src/account"], "src/secrets")).toEqual([]);
  });

  it(`src/ports/ holds type-only interfaces of at most ${PORT_MEMBERS} members`, () => {
    expect(portProblems(ROOT, "src/ports", PORT_MEMBERS)).toEqual([]);
  });

  it(`src/thread/ (the Durable Object shell) stays under ${THREAD_LINES} lines`, () => {
    expect(linesIn(ROOT, "src/thread")).toBeLessThan(THREAD_LINES);
  });
});

describe("the structure checks", () => {
  const trees: string[] = [];
  afterAll(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

  /** A throwaway tree with the given files (paths relative to its root). */
  function tree(files: Record<string, string>): string {
    const root = mkdtempSync(path.join(tmpdir(), "weft-structure-"));
    trees.push(root);
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
    return root;
  }

  it("see a circle made by each way of importing, .js specifiers read as the .ts files", () => {
    const ways = {
      "type-only import": `import type { B } from "./b.js";`,
      "type-only named import": `import { type B } from "./b.js";`,
      "export from": `export { b } from "./b.js";`,
      "export * from": `export * from "./b.js";`,
      "dynamic import": `export const load = () => import("./b.js");`,
      "import() type": `export type B = import("./b.js").B;`,
      "extensionless": `import { b } from "./b";`,
    };
    for (const [way, line] of Object.entries(ways)) {
      const root = tree({ "src/a.ts": `${line}\n`, "src/b.ts": `import { a } from "./a.js";\nexport const b = 1;\nexport type B = number;\n` });
      expect(circleProblems(root, []), way).toEqual(["import circle of 2 files:\n  src/a.ts -> src/b.ts -> src/a.ts"]);
    }
  });

  it("report each circle as a path and name every file of a longer one", () => {
    const root = tree({
      "src/x/a.ts": `import "./b.js";\n`,
      "src/x/b.ts": `import "../y/c.js";\n`,
      "src/y/c.ts": `import "../x/a.js";\nimport "./d.js";\n`,
      "src/y/d.ts": `export {};\n`,
      "src/self.ts": `import "./self.js";\n`,
    });
    expect(circleProblems(root, [])).toEqual([
      "import circle of 3 files:\n  src/x/a.ts -> src/x/b.ts -> src/y/c.ts -> src/x/a.ts",
      "import circle of 1 files:\n  src/self.ts -> src/self.ts",
    ]);
  });

  it("fail when a known circle has gone or changed, so the known list only shrinks", () => {
    const root = tree({ "src/a.ts": `import "./b.js";\n`, "src/b.ts": `import "./a.js";\n`, "src/c.ts": `export {};\n` });
    expect(circleProblems(root, [["src/a.ts", "src/b.ts"]])).toEqual([]);
    expect(circleProblems(root, [["src/a.ts", "src/b.ts"], ["src/b.ts", "src/c.ts"]])).toEqual([
      "listed in KNOWN_CIRCLES but no longer a circle as listed (remove or update it): src/b.ts src/c.ts",
    ]);
    expect(circleProblems(root, [["src/a.ts", "src/b.ts", "src/c.ts"]])).toHaveLength(2);
  });

  it("name an import of src/thread/ from below, type-only ones too", () => {
    const root = tree({
      "src/thread/engine.ts": `export interface Engine { run(): void }\n`,
      "src/run/turn.ts": `import type { Engine } from "../thread/engine.js";\n`,
      "src/http/app.ts": `import "../thread/engine.js";\n`,
    });
    expect(importsAcross(importGraph(root).edges, BELOW_THREAD, "src/thread")).toEqual([
      "src/run/turn.ts:1 -> src/thread/engine.ts (import type)",
    ]);
  });

  it("count the lines of every .ts file of a folder, nested folders included, and nothing else", () => {
    const root = tree({
      "src/thread/a.ts": "1\n2\n3\n",
      "src/thread/store/b.ts": "1\n2\n",
      "src/thread/notes.md": "1\n2\n3\n4\n",
      "src/run/c.ts": "1\n",
    });
    expect(linesIn(root, "src/thread")).toBe(5);
  });

  it("refuse a port of more than 12 members, inherited ones counted, and any code that is not a type", () => {
    const members = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `  m${from + i}(): void;`).join("\n");
    const root = tree({
      "src/ports/small.ts": `/** Contract. */\nexport interface Small {\n${members(12)}\n}\n`,
      "src/ports/big.ts": `export interface Big {\n${members(13)}\n}\n`,
      "src/ports/grown.ts": `import type { Small } from "./small.js";\nexport interface Grown extends Small {\n  extra(): void;\n}\n`,
      "src/ports/alias.ts": `export type Alias = {\n${members(13)}\n};\nexport type Id = string;\n`,
      "src/ports/code.ts": `import { x } from "../x.js";\nexport const memory = {};\nexport function make() {}\nexport type { Small } from "./small.js";\n`,
      "src/x.ts": `export const x = 1;\n`,
    });
    expect(portProblems(root, "src/ports", PORT_MEMBERS)).toEqual([
      "src/ports/alias.ts:1 Alias has 13 members (at most 12)",
      "src/ports/big.ts:1 Big has 13 members (at most 12)",
      `src/ports/code.ts:1 is not type-only: import { x } from "../x.js";`,
      "src/ports/code.ts:2 is not type-only: export const memory = {};",
      "src/ports/code.ts:3 is not type-only: export function make() {}",
      "src/ports/grown.ts:2 Grown has 13 members (at most 12)",
    ]);
  });
});
