/**
 * Every exported declaration in src/ carries TSDoc (a leading `/** ... *\/` comment), the project's
 * rule that every export has TSDoc, and so does every member of the types the two entry points
 * export; no TSDoc names the spec documents by their file numbers.
 * Run this file to list the declarations that break either rule.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT, sources } from "../sources.node.js";

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

/** The entry points users import: agent authors (`weft`, alias `@standardagents/spec`), client users (`weft/client`, `weft/react`) and tests (`weft/testing`). */
const ENTRY_POINTS = ["src/index.ts", "src/client/index.ts", "src/testing/index.ts", "src/react/index.ts"];

/**
 * The members (properties, methods, constructors, accessors) without TSDoc of every interface,
 * class and object type alias the entry points export, as `file:line Type.member`. Private and
 * protected members are left out, and so are the variants of a union (the alias says what they are).
 */
function undocumentedMembers(): Found[] {
  const program = ts.createProgram(
    ENTRY_POINTS.map((f) => path.join(ROOT, f)),
    { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true, types: [] },
  );
  const checker = program.getTypeChecker();
  const out = new Set<Found>();
  for (const entry of ENTRY_POINTS) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(path.join(ROOT, entry))!)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      for (const decl of symbol.declarations ?? []) {
        const source = decl.getSourceFile();
        const file = path.relative(ROOT, source.fileName);
        if (!file.startsWith("src/")) continue;
        const members: ts.Node[] = [];
        if (ts.isInterfaceDeclaration(decl) || ts.isClassDeclaration(decl)) members.push(...decl.members);
        else if (ts.isTypeAliasDeclaration(decl)) {
          const literals = (t: ts.TypeNode): ts.TypeLiteralNode[] =>
            ts.isTypeLiteralNode(t) ? [t] : ts.isIntersectionTypeNode(t) ? t.types.flatMap(literals) : ts.isParenthesizedTypeNode(t) ? literals(t.type) : [];
          members.push(...literals(decl.type).flatMap((l) => [...l.members]));
        }
        for (const member of members) {
          if (ts.isIndexSignatureDeclaration(member) || ts.isClassStaticBlockDeclaration(member)) continue;
          const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
          if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)) continue;
          const name = (member as ts.NamedDeclaration).name;
          if (name && ts.isPrivateIdentifier(name)) continue;
          if (tsdocOf(member, source.text).length > 0) continue;
          const line = source.getLineAndCharacterOfPosition(member.getStart()).line + 1;
          out.add(`${file}:${line} ${symbol.name}.${name ? name.getText() : "constructor"}`);
        }
      }
    }
  }
  return [...out];
}

describe("TSDoc of src/", () => {
  it("every exported declaration has a TSDoc comment", () => {
    expect(ALL.length).toBeGreaterThan(300);
    expect(ALL.filter((e) => e.docs.length === 0).map((e) => e.at)).toEqual([]);
  });

  it("every member of what an agent author or a client user imports has TSDoc (weft and weft/client)", () => {
    expect(undocumentedMembers()).toEqual([]);
  });

  it("no TSDoc cites the spec documents by number (users know the rules by name)", () => {
    expect(ALL.filter((e) => e.docs.some((d) => /seed-\d{3}/i.test(d))).map((e) => e.at)).toEqual([]);
  });
});
