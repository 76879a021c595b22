/**
 * The repository documents itself: every `src/...` path docs/architecture.md names exists, and
 * no comment in src/ sends a reader to a Markdown file that is not in the repository.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sources } from "../sources.node.js";

/** Every `src/...` path a text names (a trailing `/` or `.` of the sentence left off), once each. */
function srcPaths(text: string): string[] {
  return [...new Set([...text.matchAll(/\bsrc\/[A-Za-z0-9_.\-/]*/g)].map((m) => m[0].replace(/[./]+$/, "")))];
}

/** Every `*.md` file a text names, as written. */
function markdownNames(text: string): string[] {
  return [...new Set([...text.matchAll(/[A-Za-z0-9_.\-/]+\.md\b/g)].map((m) => m[0]))];
}

describe("docs/architecture.md", () => {
  const doc = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");

  it("names only src/ paths that exist", () => {
    const named = srcPaths(doc);
    // The walks name dozens of files; a doc that named none would pass for the wrong reason.
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((p) => !existsSync(path.join(ROOT, p)))).toEqual([]);
  });

  it("reads paths as written, stopping at the end of a sentence", () => {
    expect(srcPaths("See `src/run/turn.ts`, then src/thread/. And src/nowhere/gone.ts.")).toEqual(["src/run/turn.ts", "src/thread", "src/nowhere/gone.ts"]);
  });
});

describe("comments in src/", () => {
  it("cite only Markdown files in the repository", () => {
    const outside = new Map<string, string[]>();
    for (const file of sources("src")) {
      const missing = markdownNames(readFileSync(path.join(ROOT, file), "utf8")).filter((name) => !existsSync(path.join(ROOT, name)));
      if (missing.length > 0) outside.set(file, missing);
    }
    expect([...outside.keys()].map((f) => `${f}: ${outside.get(f)!.join(", ")}`)).toEqual([]);
  });
});
