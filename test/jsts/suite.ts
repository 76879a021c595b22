/**
 * Runs the official JSON Schema Test Suite (draft 2020-12) through the path a tool's JSON Schema
 * takes (`compileSchema`, then `validate`), counting agreement. Shared by `npm run jsts` and the
 * workerd test. Schemas that `$ref` the suite's `remotes/` are bundled first: each remote document
 * is embedded under `$defs` with its retrieval URI as `$id` (JSON Schema 2020-12 §9.3, "Bundling"),
 * which is how an author hands weft a schema spread over several documents.
 * @module
 */
import { WeftError } from "../../src/errors.js";
import { compileSchema } from "../../src/tools/schema.js";

/** One file of the suite: groups of `{ description, schema, tests }`. */
export type SuiteFile = { description: string; schema: unknown; tests: { description: string; data: unknown; valid: boolean }[] }[];

export interface SuiteResult {
  total: number;
  agree: number;
  /** Cases whose schema weft refused at definition, by refused keyword with the reason. */
  refused: number;
  falseAccepts: number;
  falseRejects: number;
  /** `<keyword>: <n> cases refused (<reason>)` lines, one per refused keyword. */
  refusedKeywords: string[];
  /** Cases whose schema was bundled with documents from remotes/. */
  bundled: number;
  disagreements: string[];
}

const REMOTE_BASE = "http://localhost:1234/";

/** Embeds the remotes a schema refers to until it compiles or a reference is not a suite remote. */
function bundle(schema: unknown, remotes: Readonly<Record<string, unknown>>): { schema: unknown; bundled: boolean } {
  let current = schema;
  for (let round = 0; round < 10; round++) {
    try {
      compileSchema("suite", "outputSchema", current as never);
      return { schema: current, bundled: round > 0 };
    } catch (e) {
      const uri = e instanceof WeftError ? (e.details?.remote as string | undefined) : undefined;
      if (!uri || !uri.startsWith(REMOTE_BASE) || typeof current !== "object" || current === null) return { schema: current, bundled: round > 0 };
      const doc = remotes[uri.slice(REMOTE_BASE.length)];
      if (doc === undefined || typeof doc !== "object" || doc === null) return { schema: current, bundled: round > 0 };
      const own = (doc as { $id?: string }).$id;
      // A document whose own $id differs is reached through its retrieval URI by a one-line alias.
      const embedded = own && own !== uri ? { $id: uri, $ref: own, $defs: { document: doc } } : { ...doc, $id: uri };
      const root = current as Record<string, unknown>;
      current = { ...root, $defs: { ...((root.$defs as object) ?? {}), [`remote_${round}`]: embedded } };
    }
  }
  return { schema: current, bundled: true };
}

/** Runs every case of `files` (name -> groups); `remotes` maps a path under remotes/ to its document. */
export function runSuite(files: Readonly<Record<string, SuiteFile>>, remotes: Readonly<Record<string, unknown>>): SuiteResult {
  const out: SuiteResult = { total: 0, agree: 0, refused: 0, falseAccepts: 0, falseRejects: 0, refusedKeywords: [], bundled: 0, disagreements: [] };
  const byKeyword = new Map<string, { cases: number; reasons: Set<string> }>();
  for (const [file, groups] of Object.entries(files)) {
    for (const group of groups) {
      out.total += group.tests.length;
      const { schema, bundled } = bundle(group.schema, remotes);
      if (bundled) out.bundled += group.tests.length;
      let compiled;
      try {
        compiled = compileSchema("suite", "outputSchema", schema as never);
      } catch (e) {
        if (!(e instanceof WeftError)) throw e;
        out.refused += group.tests.length;
        const keyword = String(e.details?.keyword ?? e.code);
        const entry = byKeyword.get(keyword) ?? { cases: 0, reasons: new Set<string>() };
        entry.cases += group.tests.length;
        entry.reasons.add(e.details?.reason ? `${String(e.details.reason)}${e.details.remote ? `: ${String(e.details.remote)}` : ""}` : e.message);
        byKeyword.set(keyword, entry);
        continue;
      }
      for (const test of group.tests) {
        const accepted = compiled.validate(test.data).ok;
        if (accepted === test.valid) out.agree++;
        else {
          if (accepted) out.falseAccepts++;
          else out.falseRejects++;
          out.disagreements.push(`${file}: ${group.description} / ${test.description}: weft ${accepted ? "accepts" : "refuses"}`);
        }
      }
    }
  }
  for (const [keyword, { cases, reasons }] of [...byKeyword].sort()) {
    out.refusedKeywords.push(`${keyword}: ${cases} cases refused (${[...reasons].sort().join("; ")})`);
  }
  return out;
}

/** The summary line `npm run jsts` prints. */
export function summaryLine(r: SuiteResult): string {
  return `json-schema: ${r.agree}/${r.total} agree, ${r.refused} refused at definition, ${r.falseAccepts} false accepts`;
}
