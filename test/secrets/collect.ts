/**
 * Full garbage collections for the node tests that measure what redaction keeps (run under
 * vitest's node pool: `--expose-gc` is set here, once).
 * @module
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Memory in use once the collector has taken what nothing holds, and the isolate's automata it took
 * have given their units back to the budget (src/secrets/automaton-pool.ts, in a task of its own).
 */
export async function collected(): Promise<NodeJS.MemoryUsage> {
  // A WeakRef's target is kept until the job that made or read it ends.
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  gc();
  await new Promise((resolve) => setTimeout(resolve, 0));
  return process.memoryUsage();
}
