/**
 * The effect policy: one table of what happens to a call, by its effect class and the situation
 * it is in. Retry, abort handling, restart recovery and dry-run threads all
 * read their decision from {@link EFFECT_POLICY}; the table in docs/guarantees.md is rendered from it and a
 * test keeps the two equal.
 * @module
 */
import type { Effect } from "./types.js";

/** The situations a call can be in where its effect class decides what happens. */
export type Situation = "transient_failure" | "restart_after_journal" | "stop_while_running" | "dry_run";

/**
 * What happens:
 * - `retry`: run again after a backoff, up to `maxAttempts`, same effect key;
 * - `retry_in_window`: `retry` while the retry goes out inside `dedupWindowMs` of the first request, else
 *   the failure is the result, its outcome unknown;
 * - `record_failure`: the failure is the result, no second attempt;
 * - `rerun`: run again;
 * - `rerun_in_window`: run again with the same effect key inside `dedupWindowMs`, else `park`;
 * - `lookup_or_rerun`: `reconcile.lookup`; found -> recorded; `not_found` + `final` -> run again; else `park`;
 * - `lookup_or_abort`: `reconcile.lookup`; found -> recorded; `not_found` + `final` -> recorded `aborted`, unless
 *   the stop cut `execute` mid-flight (its request may still land after the lookup: then `park`); else `park`;
 * - `abort`: recorded `aborted`;
 * - `park`: waits for a person to settle it;
 * - `run`: runs as in any thread;
 * - `stub`: answered by `dryRunResult` (or "Operation acknowledged.") without running.
 */
export type PolicyAction =
  | "retry"
  | "retry_in_window"
  | "record_failure"
  | "rerun"
  | "rerun_in_window"
  | "lookup_or_rerun"
  | "lookup_or_abort"
  | "abort"
  | "park"
  | "run"
  | "stub";

/** The effect policy table: effect class x situation -> action. */
export const EFFECT_POLICY: Readonly<Record<Effect, Readonly<Record<Situation, PolicyAction>>>> = {
  read: { transient_failure: "retry", restart_after_journal: "rerun", stop_while_running: "abort", dry_run: "run" },
  idempotent: { transient_failure: "retry_in_window", restart_after_journal: "rerun_in_window", stop_while_running: "park", dry_run: "stub" },
  reconcilable: { transient_failure: "record_failure", restart_after_journal: "lookup_or_rerun", stop_while_running: "lookup_or_abort", dry_run: "stub" },
  write: { transient_failure: "record_failure", restart_after_journal: "park", stop_while_running: "park", dry_run: "stub" },
};

/** The action for `effect` in `situation`. */
export function policyFor(effect: Effect, situation: Situation): PolicyAction {
  return EFFECT_POLICY[effect][situation];
}

/**
 * The more cautious of two effect classes: what a call that started as one and is judged as the
 * other now (a deploy redeclared its tool) runs under when it may have run. `write` is above every
 * class and `read` below every class; `idempotent` and `reconcilable` guard a second run each its
 * own way (a window, a lookup), so neither stands in for the other and together they are `write`.
 */
export function moreCautious(a: Effect, b: Effect): Effect {
  if (a === b || b === "read") return a;
  if (a === "read") return b;
  return "write";
}

/** Column order and headings of the effect table (docs/guarantees.md). */
export const SITUATION_HEADINGS: Readonly<Record<Situation, string>> = {
  transient_failure: "transient failure",
  restart_after_journal: "restart after the journal row, before a result",
  stop_while_running: "stopped while running",
  dry_run: "dry-run thread",
};

/** Row labels of the effect table (docs/guarantees.md) (what a user declares). */
export const EFFECT_LABELS: Readonly<Record<Effect, string>> = {
  read: "`read`",
  idempotent: "`idempotent` (needs `dedupWindowMs`)",
  reconcilable: "`reconcilable` (needs `reconcile: { lookup, finality }`)",
  write: "`write`, or no `effect`",
};

/** How each action reads in the effect table (docs/guarantees.md). */
export const ACTION_TEXT: Readonly<Record<PolicyAction, string>> = {
  retry: "retried (3 attempts by default, backoff), same `effectKey`",
  retry_in_window: "retried (3 attempts by default, backoff), same `effectKey`, while the retry goes out inside the window (counted from its first start); past it the failure is the result, its outcome unknown",
  record_failure: "run once; the failure is the result",
  rerun: "run again",
  rerun_in_window: "run again with the same `effectKey` inside the window (counted from its first start: a re-run cut again keeps only the window left); parked after it",
  lookup_or_rerun: "`lookup(effectKey)`: found → its value is the result; `not_found` + `final` → run again; otherwise parked",
  lookup_or_abort: "`lookup(effectKey)`: found → its value is the result; `not_found` + `final` → `aborted` if `execute` had ended (parked if the stop cut it mid-flight); otherwise parked",
  abort: "recorded `aborted`",
  park: "parked",
  run: "runs",
  stub: "stubbed",
};

/** The effect table of docs/guarantees.md (Markdown), rendered from {@link EFFECT_POLICY}. */
export function renderPolicyTable(): string {
  const situations = Object.keys(SITUATION_HEADINGS) as Situation[];
  const lines = [
    `| effect | ${situations.map((s) => SITUATION_HEADINGS[s]).join(" | ")} |`,
    `|${"---|".repeat(situations.length + 1)}`,
    ...(Object.keys(EFFECT_POLICY) as Effect[]).map(
      (effect) => `| ${EFFECT_LABELS[effect]} | ${situations.map((s) => ACTION_TEXT[EFFECT_POLICY[effect][s]]).join(" | ")} |`,
    ),
  ];
  return lines.join("\n");
}
