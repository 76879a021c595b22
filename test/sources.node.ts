/**
 * The repository's TypeScript sources, for tests that check a rule over all of src/.
 * @module
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (absolute, with a trailing slash). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Every `.ts` file under `dir` (relative to the root), generated code left out. */
export function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === "src/generated" ? [] : sources(rel);
    return e.name.endsWith(".ts") ? [rel] : [];
  });
}
