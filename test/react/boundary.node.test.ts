/**
 * `weft/react` stays outside the Worker: no file of src/ other than src/react/ imports it or the
 * `react` package (so the Worker's bundle never carries React, and weft needs React only where
 * the hook is used), and src/react/ reaches the server only through `weft/client`. The same check
 * over a small tree written here is seen to fail.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importGraph, importsOf, tsFiles } from "../import-graph.node.js";
import { ROOT } from "../sources.node.js";

/** The imports that cross the boundary, as `file:line -> target`. */
function boundaryProblems(root: string): string[] {
  const inReact = (f: string) => f.startsWith("src/react/");
  const problems: string[] = [];
  for (const e of importGraph(root).edges) {
    if (!inReact(e.from) && inReact(e.to)) problems.push(`${e.from}:${e.line} -> ${e.to}`);
    if (inReact(e.from) && !inReact(e.to) && !e.to.startsWith("src/client/")) problems.push(`${e.from}:${e.line} -> ${e.to} (src/react/ reaches weft through src/client/ only)`);
  }
  for (const file of tsFiles(root, "src").filter((f) => !inReact(f))) {
    for (const i of importsOf(root, file)) if (/^react(-dom)?(\/|$)/.test(i.specifier)) problems.push(`${file}:${i.line} -> ${i.specifier}`);
  }
  return problems;
}

describe("weft/react's boundary", () => {
  const tmp = mkdtempSync(path.join(tmpdir(), "weft-react-boundary-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("holds in the repository", () => {
    expect(boundaryProblems(ROOT)).toEqual([]);
  });

  it("fails on a Worker file that imports the hook or React, and on the hook reaching past the client", () => {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
      writeFileSync(path.join(tmp, file), text);
    };
    write("src/react/index.ts", 'import { x } from "../client/index.ts";\nimport { y } from "../thread/engine.ts";\nexport const z = [x, y];\n');
    write("src/client/index.ts", "export const x = 1;\n");
    write("src/thread/engine.ts", "export const y = 2;\n");
    write("src/worker.ts", 'import { z } from "./react/index.ts";\nimport { useState } from "react";\nexport default [z, useState];\n');
    expect(boundaryProblems(tmp)).toEqual([
      "src/react/index.ts:2 -> src/thread/engine.ts (src/react/ reaches weft through src/client/ only)",
      "src/worker.ts:1 -> src/react/index.ts",
      "src/worker.ts:2 -> react",
    ]);
  });
});
