/**
 * Every console line of src/ goes through src/log.ts, which writes terminal controls out as text
 * (test/run/log-controls.test.ts): a `console.*` call elsewhere would print a user's text raw.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tsFiles } from "./import-graph.node.js";
import { ROOT } from "./sources.node.js";

/** The helper itself, and the sandbox's console, which is the sandboxed code's own. */
const ALLOWED = new Set(["src/log.ts", "src/sandbox/prelude.ts"]);

describe("console lines of src/", () => {
  it("all go through src/log.ts", () => {
    const direct = tsFiles(ROOT, "src").flatMap((file) =>
      ALLOWED.has(file)
        ? []
        : readFileSync(path.join(ROOT, file), "utf8")
            .split("\n")
            .flatMap((line, i) => (/^\s*(\*|\/\/)/.test(line) || !/\bconsole\.(log|info|warn|error|debug)\(/.test(line) ? [] : [`${file}:${i + 1}`])),
    );
    expect(direct).toEqual([]);
  });
});
