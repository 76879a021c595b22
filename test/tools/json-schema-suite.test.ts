/// <reference types="vite/client" />
/**
 * The official JSON Schema Test Suite (draft 2020-12, ../shared/data/json-schema-test-suite) through
 * the path a tool's JSON Schema takes, inside workerd. `npm run jsts` prints the same counts.
 */
import { expect, it } from "vitest";
import { type SuiteFile, runSuite, summaryLine } from "../jsts/suite.js";

// Read as text and parsed with JSON.parse, as a client's JSON is: a bundler's JSON module may turn a
// "__proto__" key (the suite tests such names) into an object literal's prototype instead of a property.
const files = import.meta.glob<string>("../../../shared/data/json-schema-test-suite/*.json", { eager: true, query: "?raw", import: "default" });
const remotes = import.meta.glob<string>("../../../shared/data/json-schema-test-suite/remotes/**/*.json", { eager: true, query: "?raw", import: "default" });
const strip = (prefix: string, table: Record<string, string>) =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [k.slice(k.indexOf(prefix) + prefix.length), JSON.parse(v) as unknown]));

it("agrees with at least 98% of the suite, accepts nothing it should refuse, and refuses only remote documents", () => {
  const result = runSuite(strip("json-schema-test-suite/", files) as Record<string, SuiteFile>, strip("remotes/", remotes));
  expect(result.total).toBeGreaterThan(1200);
  expect(result.falseAccepts, result.disagreements.join("\n")).toBe(0);
  expect(result.agree / result.total).toBeGreaterThanOrEqual(0.98);
  for (const line of result.refusedKeywords) expect(line).toMatch(/remote/);
  expect(summaryLine(result)).toMatch(/^json-schema: \d+\/\d+ agree, \d+ refused at definition, 0 false accepts$/);
});
