/**
 * The import graph of a source tree, read with the TypeScript compiler API, and the layering rules
 * checked over it: no import circles, no imports of `src/thread/` from the layers below it, and
 * `src/ports/` as small, type-only interfaces. structure.node.test.ts runs these over the repository and
 * over small trees it writes itself, so each rule is seen to fail.
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One import: the importing file, the imported file (both relative to the root, `/`-separated), how it was written. */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import`, `import type`, `export from`, `import()` (a dynamic import or an `import("...")` type). */
  kind: "import" | "import type" | "export from" | "import()";
  line: number;
}

/** Every `.ts` file under `dir` (relative to `root`), generated code left out. */
export function tsFiles(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === "src/generated" ? [] : tsFiles(root, rel);
    return e.name.endsWith(".ts") ? [rel] : [];
  });
}

/**
 * The file a relative specifier names: `./x.js` is `./x.ts` (TypeScript's ESM convention), `./x`
 * is `./x.ts` or `./x/index.ts`. Undefined for a package or a non-TypeScript file (`.html`, `.wasm`).
 */
function resolve(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const candidates = /\.[cm]?js$/.test(base)
    ? [base.replace(/\.([cm]?)js$/, ".$1ts"), base]
    : base.endsWith(".ts")
      ? [base]
      : [`${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => c.endsWith(".ts") && existsSync(path.join(root, c)) && statSync(path.join(root, c)).isFile());
}

/** Every import a file makes, written any way: static, type-only, re-export, dynamic with a literal, `import("...")` types. */
export function importsOf(root: string, file: string): Array<{ specifier: string; kind: ImportEdge["kind"]; line: number }> {
  const text = readFileSync(path.join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ specifier: string; kind: ImportEdge["kind"]; line: number }> = [];
  const add = (literal: ts.Expression, kind: ImportEdge["kind"]) => {
    if (!ts.isStringLiteralLike(literal)) return;
    found.push({ specifier: literal.text, kind, line: source.getLineAndCharacterOfPosition(literal.getStart()).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings)
        && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly ? "import type" : "import");
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, "export from");
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, "import");
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      add(node.arguments[0], "import()");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, "import()");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The import graph of every `.ts` file under `dir`: edges between files of the tree only. */
export function importGraph(root: string, dir = "src"): { files: string[]; edges: ImportEdge[] } {
  const files = tsFiles(root, dir).sort();
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const i of importsOf(root, from)) {
      const to = resolve(root, from, i.specifier);
      if (to && known.has(to)) edges.push({ from, to, kind: i.kind, line: i.line });
    }
  }
  return { files, edges };
}

/** The graph's strongly connected components of more than one file (or a file importing itself), each sorted. */
export function circles(files: string[], edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  // Tarjan's algorithm, iterative so a deep chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let counter = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, counter); low.set(start, counter++); stack.push(start); onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const out = next.get(top.node) ?? [];
      if (top.i < out.length) {
        const to = out[top.i++]!;
        if (!index.has(to)) {
          index.set(to, counter); low.set(to, counter++); stack.push(to); onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        if (component.length > 1 || out.includes(top.node)) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/**
 * The shortest circle through `file` inside `component`, as a path `a -> b -> a` (breadth-first,
 * over the component's own edges).
 */
export function circleThrough(file: string, component: string[], edges: ImportEdge[]): string {
  const inside = new Set(component);
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (inside.has(e.from) && inside.has(e.to)) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  const parent = new Map<string, string>();
  const queue = [file];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const to of [...new Set(next.get(at) ?? [])].sort()) {
      if (to === file) {
        const pathBack = [at];
        while (pathBack[0] !== file) pathBack.unshift(parent.get(pathBack[0]!)!);
        return [...pathBack, file].join(" -> ");
      }
      if (seen.has(to)) continue;
      seen.add(to);
      parent.set(to, at);
      queue.push(to);
    }
  }
  return `${file} (no circle)`;
}

/** Each circle of a component as a path: the shortest through each of its files, repeats left out. */
export function describeCircle(component: string[], edges: ImportEdge[]): string[] {
  const paths: string[] = [];
  const covered = new Set<string>();
  for (const file of component) {
    if (covered.has(file)) continue;
    const p = circleThrough(file, component, edges);
    p.split(" -> ").forEach((f) => covered.add(f));
    paths.push(p);
  }
  return paths;
}

/** `from:line -> to` for every import of a folder from a folder listed in `below` (each a `src/...` prefix). */
export function importsAcross(edges: ImportEdge[], below: string[], above: string): string[] {
  return edges
    .filter((e) => below.some((b) => e.from.startsWith(`${b}/`)) && e.to.startsWith(`${above}/`))
    .map((e) => `${e.from}:${e.line} -> ${e.to} (${e.kind})`);
}

/**
 * The rule for a ports folder: only type-only code (interfaces, type aliases, type-only imports and
 * re-exports), and no interface (or object type alias) of more than `max` members, members of the
 * interfaces it extends counted (read with the type checker).
 */
export function portProblems(root: string, dir: string, max: number): string[] {
  const files = tsFiles(root, dir).sort();
  if (files.length === 0) return [];
  const program = ts.createProgram(files.map((f) => path.join(root, f)), {
    noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, types: [], strict: true,
  });
  const checker = program.getTypeChecker();
  const problems: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(path.join(root, file))!;
    const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    for (const statement of source.statements) {
      if (ts.isInterfaceDeclaration(statement) || (ts.isTypeAliasDeclaration(statement) && ts.isTypeLiteralNode(statement.type))) {
        const type = checker.getTypeAtLocation(statement.name);
        const members = checker.getPropertiesOfType(type).length + type.getCallSignatures().length
          + type.getConstructSignatures().length + checker.getIndexInfosOfType(type).length;
        const own = ts.isInterfaceDeclaration(statement) ? statement.members.length : (statement.type as ts.TypeLiteralNode).members.length;
        const count = Math.max(members, own);
        if (count > max) problems.push(`${at(statement)} ${statement.name.text} has ${count} members (at most ${max})`);
        continue;
      }
      if (ts.isTypeAliasDeclaration(statement)) continue;
      if (ts.isImportDeclaration(statement) && statement.importClause && isTypeOnlyImport(statement.importClause)) continue;
      if (ts.isExportDeclaration(statement) && (statement.isTypeOnly || (statement.exportClause && ts.isNamedExports(statement.exportClause)
        && statement.exportClause.elements.length > 0 && statement.exportClause.elements.every((e) => e.isTypeOnly)))) continue;
      problems.push(`${at(statement)} is not type-only: ${statement.getText().split("\n")[0]!.slice(0, 80)}`);
    }
  }
  return problems;
}

function isTypeOnlyImport(clause: ts.ImportClause): boolean {
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}
