/**
 * How much of a crash proof a run plays: `npm run crash-matrix` plays every case
 * (test/crash/vitest.config.ts provides `full`); npm test a sample in which every effect class and
 * every crash point still occur.
 * @module
 */
import { inject } from "vitest";

declare module "vitest" {
  interface ProvidedContext {
    /** `full` under `npm run crash-matrix`; npm test runs the short versions. */
    crashScale?: "short" | "full";
  }
}

/**
 * Every pair of `as` and `bs` under `npm run crash-matrix`; under npm test one list walked beside
 * the other, the shorter one wrapping, so each item of both occurs at least once.
 */
export function crossOrSample<A, B>(as: readonly A[], bs: readonly B[]): Array<readonly [A, B]> {
  if (inject("crashScale") === "full") return as.flatMap((a) => bs.map((b) => [a, b] as const));
  return Array.from({ length: Math.max(as.length, bs.length) }, (_, i) => [as[i % as.length]!, bs[i % bs.length]!] as const);
}
