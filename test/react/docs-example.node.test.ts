/**
 * docs/client.md's `weft/react` example type-checks against the hook as it is (strict, JSX, DOM),
 * so a renamed field or a changed signature fails here; the browser test (e2e/react.test.ts)
 * runs the same component. A planted misuse is seen to fail the same check.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../sources.node.js";

// Inside the repository's node_modules, so `react` and its types resolve as they do for a user.
const DIR = path.join(ROOT, "node_modules", ".cache", `weft-react-docs-${process.pid}`);
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

/** The example block of docs/client.md. */
function example(): string {
  const block = /^```tsx chat-example\n([\s\S]*?)^```$/m.exec(readFileSync(path.join(ROOT, "docs/client.md"), "utf8"));
  if (!block) throw new Error("docs/client.md has no ```tsx chat-example block");
  return block[1]!;
}

/** The type errors of `files` (name -> source), as `file:line message`. */
function typeErrors(files: Record<string, string>): string[] {
  mkdirSync(DIR, { recursive: true });
  const roots = Object.entries(files).map(([name, text]) => {
    const file = path.join(DIR, name);
    writeFileSync(file, text);
    return file;
  });
  const program = ts.createProgram(roots, {
    strict: true,
    noUncheckedIndexedAccess: true,
    jsx: ts.JsxEmit.ReactJSX,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    paths: { "weft/react": [path.join(ROOT, "src/react/index.ts")] },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && roots.includes(path.resolve(d.file.fileName)))
    .map((d) => `${path.basename(d.file!.fileName)}:${d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

it("docs/client.md's useThread example type-checks, and a misuse of the hook does not", () => {
  const misuse = example().replace("call.approve!()", "call.approve!(call.argsHash, 1)").replace("send(draft)", "send(draft, { scrip: [] })");
  const errors = typeErrors({ "Chat.tsx": example(), "Misused.tsx": misuse });
  expect(errors.filter((e) => e.startsWith("Chat.tsx"))).toEqual([]);
  expect(errors.filter((e) => e.startsWith("Misused.tsx")).map((e) => e.split(" ")[0])).toEqual(["Misused.tsx:14", "Misused.tsx:18"]);
}, 300_000);
