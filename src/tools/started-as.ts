/**
 * The terms a call runs under: its effect class with the setting that class guards a second run
 * by (an idempotent call's dedup window, a reconcilable call's finality). The journal keeps the
 * terms a call's row was started under in the form defined here, and a call that may have run is
 * held to the more cautious of those and its tool's now, so no deploy since makes it less cautious.
 * @module
 */
import { moreCautious } from "./policy.js";
import type { Effect } from "./types.js";

/** How a reconcilable tool's `not_found` reads: `final` (nothing happened) or `nonfinal` (it may yet). */
export type Finality = "final" | "nonfinal";

/**
 * An effect class and its setting: `dedupWindowMs` (milliseconds) with `idempotent`, `finality`
 * with `reconcilable`; neither with another class.
 */
export interface EffectTerms {
  effect: Effect;
  dedupWindowMs?: number;
  finality?: Finality;
}

/**
 * The terms as the journal stores them (the `calls.effect` column): `read`, `write`,
 * `idempotent:<dedupWindowMs>` or `reconcilable:<finality>`, e.g. `idempotent:60000`.
 */
export type StartedAs = "read" | "write" | `idempotent:${number}` | `reconcilable:${Finality}`;

/** The terms `def` declares for a call of class `effect` (the setting it lacks left out). */
export function termsOf(effect: Effect, def: { dedupWindowMs?: number; reconcile?: { finality: Finality } }): EffectTerms {
  if (effect === "idempotent" && def.dedupWindowMs !== undefined) return { effect, dedupWindowMs: def.dedupWindowMs };
  if (effect === "reconcilable" && def.reconcile) return { effect, finality: def.reconcile.finality };
  return { effect };
}

/** The stored form of `terms`; a class without its setting is stored as `write`, the class that never runs twice. */
export function startedAs(terms: EffectTerms): StartedAs {
  if (terms.effect === "idempotent") return terms.dedupWindowMs === undefined ? "write" : `idempotent:${terms.dedupWindowMs}`;
  if (terms.effect === "reconcilable") return terms.finality === undefined ? "write" : `reconcilable:${terms.finality}`;
  return terms.effect;
}

/** The terms of a stored form; anything else reads as `write`, the class that never runs twice. */
export function readStartedAs(stored: string): EffectTerms {
  const [effect, setting] = stored.split(":");
  const ms = Number(setting);
  if (effect === "idempotent" && Number.isInteger(ms) && ms > 0) return { effect, dedupWindowMs: ms };
  if (effect === "reconcilable" && (setting === "final" || setting === "nonfinal")) return { effect, finality: setting };
  return setting === undefined && (effect === "read" || effect === "write") ? { effect } : { effect: "write" };
}

/**
 * The more cautious of the terms a call started under and the terms it is judged under now: the
 * class by {@link moreCautious}, the smaller dedup window, and `nonfinal` when either is (a
 * `not_found` is trusted only when both deploys trust it).
 */
export function moreCautiousTerms(started: EffectTerms, now: EffectTerms): EffectTerms {
  const effect = moreCautious(started.effect, now.effect);
  if (effect === "idempotent") {
    const windows = [started.dedupWindowMs, now.dedupWindowMs].filter((ms) => ms !== undefined);
    return windows.length ? { effect, dedupWindowMs: Math.min(...windows) } : { effect };
  }
  if (effect === "reconcilable") {
    const finalities = [started.finality, now.finality].filter((f) => f !== undefined);
    return finalities.length ? { effect, finality: finalities.includes("nonfinal") ? "nonfinal" : "final" } : { effect };
  }
  return { effect };
}
