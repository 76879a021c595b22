/** Runs weft's registry build as the build-script tests do (Node only). */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The build tests' fixture folders (never the author's agents/). */
export const CASES = "test/scripts/build-fixtures";

/** What one build printed and how it exited. */
export interface BuildRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/build-registry.mjs` with `args` from the repository root, on the Node running the tests. */
export function build(...args: string[]): Promise<BuildRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["scripts/build-registry.mjs", ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}
