/**
 * Redaction keeping a JSON text JSON read every token of it into an array (a number's start and
 * end, 10 bytes or more a character for small tokens), whenever a secret touched something other
 * than a plain string part: a user's numeric secret once in a 16 MB tool result of small numbers
 * took over 128 MB, an isolate's memory (redacted as text before, it took a copy of the text).
 */
import { spawnSync } from "node:child_process";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** Runs `body` (with `Redactor` in scope) in a node process of `heapMb` MB; what it prints, or how it ended. */
async function inSmallHeap(body: string, heapMb: number): Promise<string> {
  const bundle = await build({ entryPoints: ["src/secrets/redact.ts"], bundle: true, format: "cjs", platform: "node", write: false, logLevel: "silent" });
  const code = `const { Redactor } = (() => { const module = { exports: {} }; const exports = module.exports;\n${bundle.outputFiles[0]!.text}\nreturn module.exports; })();\n${body}`;
  const run = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, "-"], { input: code, encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : `exit ${run.status ?? run.signal}: ${run.stderr.split("\n").find((l) => /heap|Error/.test(l)) ?? ""}`;
}

describe("a numeric secret in a large JSON text of small numbers", () => {
  it("is redacted within a heap a few times the text's size", async () => {
    const answer = await inSmallHeap(
      `const text = "[1000000," + "0,".repeat(8 * 1024 * 1024) + "0]";
       const out = new Redactor([{ name: "PIN", value: "000000" }]).text(text);
       console.log(out.slice(0, 20) + " " + out.length);`,
      112,
    );
    expect(answer).toBe(`["[redacted]",0,0,0, ${16 * 1024 * 1024 + 16}`);
  }, 60_000);

  it("and a secret across all of its small numbers too (redacted as text then)", async () => {
    const answer = await inSmallHeap(
      `const text = "[" + "0,".repeat(8 * 1024 * 1024) + "0]";
       console.log(new Redactor([{ name: "S", value: "0,0,0,0" }]).text(text));`,
      112,
    );
    expect(answer).toBe("[[redacted]]");
  }, 60_000);
});
