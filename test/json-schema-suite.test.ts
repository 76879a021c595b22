/// <reference types="vite/client" />
/**
 * The official JSON Schema Test Suite (draft 2020-12, ../shared/data/json-schema-test-suite) through
 * the path a tool's JSON Schema takes, inside workerd. `npm run jsts` prints the same counts.
 */
import { expect, it } from "vitest";
import { type SuiteFile, runSuite, summaryLine } from "./jsts/suite.js";

const files = import.meta.glob<SuiteFile>("../../shared/data/json-schema-test-suite/*.json", { eager: true, import: "default" });
const remotes = import.meta.glob<unknown>("../../shared/data/json-schema-test-suite/remotes/**/*.json", { eager: true, import: "default" });
const strip = (prefix: string, table: Record<string, unknown>) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k.slice(k.indexOf(prefix) + prefix.length), v]));

it("agrees with at least 98% of the suite, accepts nothing it should refuse, and refuses only remote documents", () => {
  const result = runSuite(strip("json-schema-test-suite/", files) as Record<string, SuiteFile>, strip("remotes/", remotes));
  expect(result.total).toBeGreaterThan(1200);
  expect(result.falseAccepts, result.disagreements.join("\n")).toBe(0);
  expect(result.agree / result.total).toBeGreaterThanOrEqual(0.98);
  for (const line of result.refusedKeywords) expect(line).toMatch(/remote/);
  expect(summaryLine(result)).toMatch(/^json-schema: \d+\/\d+ agree, \d+ refused at definition, 0 false accepts$/);
});
