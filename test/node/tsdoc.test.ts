/**
 * Every exported declaration in src/ carries TSDoc (a leading `/** ... *\/` comment), the rule of
 * STYLE.md's "every export has TSDoc"; and no TSDoc names the spec documents by their file numbers.
 * Run this file to list the declarations that break either rule.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT, sources } from "./sources.js";

/** An exported top-level declaration: `file:line name`. */
type Found = string;

/** Whether `node` is exported from its module (`export ...` or `export default ...`). */
function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The TSDoc blocks (`/** ... *\/`) directly before `node`; a file's `@module` comment is not the first statement's. */
function tsdocOf(node: ts.Node, text: string): string[] {
  return (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [])
    .map((r) => text.slice(r.pos, r.end))
    .filter((c) => c.startsWith("/**") && !/@module\b/.test(c));
}

/** A declaration's name for the report. */
function nameOf(node: ts.Node): string {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((d) => d.name.getText()).join(", ");
  if (ts.isExportAssignment(node)) return "default";
  if (ts.isExportDeclaration(node)) return node.exportClause?.getText().replace(/\s+/g, " ") ?? "*";
  const name = (node as ts.NamedDeclaration).name;
  return name ? name.getText() : "default";
}

/** The exported declarations of one file, each with its TSDoc blocks. */
function exportsOf(file: string): Array<{ at: Found; docs: string[] }> {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ at: Found; docs: string[] }> = [];
  let previous: ts.Statement | undefined;
  for (const statement of source.statements) {
    // `export { a } from "./b.js"` counts too: the entry it adds to this module says why it is there.
    const exported = ts.isExportAssignment(statement) || ts.isExportDeclaration(statement) || isExported(statement);
    // An overload's implementation shares the TSDoc of its first signature.
    const overload = ts.isFunctionDeclaration(statement) && previous && ts.isFunctionDeclaration(previous) && previous.name?.getText() === statement.name?.getText();
    if (exported && !overload) {
      const line = source.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
      out.push({ at: `${file}:${line} ${nameOf(statement)}`, docs: tsdocOf(statement, text) });
    }
    previous = statement;
  }
  return out;
}

const ALL = sources("src").flatMap(exportsOf);

describe("TSDoc of src/", () => {
  it("every exported declaration has a TSDoc comment", () => {
    expect(ALL.length).toBeGreaterThan(300);
    expect(ALL.filter((e) => e.docs.length === 0).map((e) => e.at)).toEqual([]);
  });

  it("no TSDoc cites the spec documents by number (users know the rules by name)", () => {
    expect(ALL.filter((e) => e.docs.some((d) => /seed-\d{3}/i.test(d))).map((e) => e.at)).toEqual([]);
  });
});
