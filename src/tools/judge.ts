/**
 * The one rule for the author code that judges a call before it runs: its `effect` predicate and
 * its `needsApproval` predicate. Either may throw or answer something that is not an answer; on
 * every path a call takes (a model step, a direct call, `invokeTool`, `queueTool`, an MCP call,
 * an approval) that ends the call with an error result naming the predicate, the call never runs,
 * and its siblings go on.
 * @module
 */
import { errorMessage } from "../errors.js";
import type { ThreadState } from "./thread-state.js";
import type { CompiledTool } from "./catalog.js";
import { type EffectTerms, type StartedAs, moreCautiousTerms, readStartedAs, termsOf } from "./started-as.js";
import { type Effect, isEffect, missingForEffect } from "./types.js";

/** A predicate's answer, or why there is none (the error result's text, naming the predicate). */
export type Judged<T> = { ok: true; value: T } | { ok: false; error: string };

/** Short JSON text of whatever a predicate answered, for the error result. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 120)}...` : text;
}

function refused(tool: CompiledTool, predicate: string, why: string): { ok: false; error: string } {
  return { ok: false, error: `tool "${tool.name}": ${predicate} failed: ${why}; the call did not run` };
}

/**
 * The effect class of a call of `tool` with `input`: the declared class, `write` when undeclared,
 * or what the effect predicate answers (weft's effect table).
 * @returns an error naming `its effect predicate` when it throws, answers anything but
 * `read`, `write`, `idempotent` or `reconcilable`, or answers `idempotent` for a tool without
 * `dedupWindowMs` or `reconcilable` for one without `reconcile`.
 */
export function judgeEffect(tool: CompiledTool, input: unknown): Judged<Effect> {
  const effect = tool.def.effect;
  if (typeof effect !== "function") return { ok: true, value: effect ?? "write" };
  let decided: unknown;
  try {
    decided = effect(input as never);
  } catch (e) {
    return refused(tool, "its effect predicate", errorMessage(e));
  }
  if (!isEffect(decided)) return refused(tool, "its effect predicate", `it returned ${shown(decided)}, not one of read, write, idempotent or reconcilable`);
  // An answer pairs with the tool's options as a declared effect must, or a retry, restart or stop
  // would run it without the window or lookup the class relies on.
  const missing = missingForEffect(decided, tool.def);
  if (missing) return refused(tool, "its effect predicate", `it returned ${decided}, but the tool has no ${missing}`);
  return { ok: true, value: decided };
}

/**
 * The effect class and its setting (dedup window, finality) that recovery, a stop, a resumed call
 * and a person's retry run a call under, where the call started before and no refusal can undo
 * that: a predicate that fails now counts as `write`, the class that never runs twice.
 * `startedAs` is what its journal row was started under: a deploy since then that redeclared the
 * tool cannot make it less cautious ({@link moreCautiousTerms}: the smaller window, `nonfinal` if
 * either is), and a class the tool no longer has the options for (`dedupWindowMs`, `reconcile`)
 * counts as `write`. Undefined (a row journaled before weft stored it) leaves the tool's terms now.
 */
export function effectOrWrite(tool: CompiledTool, input: unknown, startedAs: StartedAs | undefined): EffectTerms {
  const judged = judgeEffect(tool, input);
  const now = termsOf(judged.ok ? judged.value : "write", tool.def);
  if (startedAs === undefined) return now;
  const terms = moreCautiousTerms(readStartedAs(startedAs), now);
  return missingForEffect(terms.effect, tool.def) ? { effect: "write" } : terms;
}

/**
 * Whether a call of `tool` with `input` waits for a person (`needsApproval`). Answered without a
 * promise when there is no predicate to wait for; `state` is only built for a predicate.
 * @returns an error naming `needsApproval` when the predicate throws, rejects, or answers anything
 * but a boolean: the call then never runs, so approval cannot be bypassed by a bad answer.
 */
export function judgeApproval(tool: CompiledTool, input: unknown, state: () => ThreadState): Judged<boolean> | Promise<Judged<boolean>> {
  const rule = tool.def.needsApproval;
  if (rule === undefined || rule === false) return { ok: true, value: false };
  if (typeof rule !== "function") return { ok: true, value: true };
  const asked = async (): Promise<Judged<boolean>> => {
    let answer: unknown;
    try {
      answer = await rule(input as never, state());
    } catch (e) {
      return refused(tool, "needsApproval", errorMessage(e));
    }
    if (typeof answer !== "boolean") return refused(tool, "needsApproval", `it returned ${shown(answer)}, not a boolean`);
    return { ok: true, value: answer };
  };
  return asked();
}
