/**
 * `language: "typescript"`: types are stripped with sucrase (small and fast inside a Worker; no
 * type checking), keeping line numbers so stack traces point at the caller's lines.
 * @module
 */
import { transform } from "sucrase";

/** JavaScript of a TypeScript module; throws sucrase's `SyntaxError` naming the file and line. */
export function stripTypes(source: string, filePath: string): string {
  return transform(source, { transforms: ["typescript"], filePath, disableESTransforms: true, keepUnusedImports: false }).code;
}
