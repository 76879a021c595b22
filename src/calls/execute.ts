/**
 * What one run of a tool's `execute` (stage 8 of pipeline.ts) is made of besides the call itself:
 * the context a tool sees, the effect table's answer to a stop while it ran, the reconcile
 * lookup, and the output check (stage 9).
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { ToolResult } from "../protocol.js";
import type { CompiledTool } from "../tools/catalog.js";
import { formatPath } from "../tools/json-schema/compile.js";
import { policyFor } from "../tools/policy.js";
import type { Finality } from "../tools/started-as.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { LookupResult, ToolCallContext } from "../tools/types.js";
import type { Attempt } from "./attempt.js";
import { type CallOutcome, type ReadyCall, effectKeyOf } from "./call.js";
import type { CallContext } from "./context.js";
import { type FinishExtra, finishCall, parkCall } from "./record.js";
import { normalizeResult } from "./result.js";
import { resumableOf } from "./suspend.js";

/**
 * The `ToolCallContext` of one attempt. `signal` is an accessor on the prototype, made only when
 * read: in an object literal an accessor gives every context a hidden class of its own, slow to
 * build and to read.
 */
export class AttemptContext implements ToolCallContext {
  declare readonly approvedBy?: string;
  readonly #attempt: Attempt;

  constructor(
    readonly callId: string,
    readonly effectKey: string,
    readonly toolName: string,
    readonly attempt: number,
    run: Attempt,
    approvedBy: string | undefined,
  ) {
    this.#attempt = run;
    if (approvedBy) (this as { approvedBy?: string }).approvedBy = approvedBy;
  }

  get signal(): AbortSignal {
    return this.#attempt.signal;
  }
}

/** Deadline of one attempt of `execute` when neither the tool nor `WEFT_CALL_TIMEOUT_MS` sets one. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** What the model is told when a write threw: its outcome is not known. */
export const UNKNOWN_OUTCOME =
  "The outcome is unknown: the call failed after it began, so its effect may have happened; repeating the call may repeat the effect";

/** A thrown input refusal: the tool said no before doing anything. */
export function isRefusal(thrown: unknown): boolean {
  return thrown instanceof WeftError ? thrown.code === "invalid_tool_input" : (thrown as { code?: unknown } | null)?.code === "invalid_tool_input";
}

/**
 * A stop after `execute` began never records success: the effect policy's "stopped while
 * running" column decides between aborted, a lookup, and parked. `inFlight`: the stop cut
 * `execute` before it settled, so its request may still land after any lookup, and a lookup's
 * `not_found` cannot tell that nothing happened. Also the stop of a call that ran and is
 * suspended on work inside it (src/calls/stop.ts), whose `execute` had ended.
 */
export async function afterAbort(host: CallContext, call: ReadyCall, state: ThreadState, attempts: number, inFlight: boolean): Promise<CallOutcome> {
  const reason = "the thread was stopped while the call ran; its outcome is unknown";
  const action = policyFor(call.effect, "stop_while_running");
  if (action === "abort") return finishCall(host, call, { status: "error", error: `aborted: ${reason}` }, "aborted", attempts);
  if (action === "lookup_or_abort") {
    // Work the call started outside this thread (an agent's child thread) is stopped too, and the lookup reads how it ended.
    await resumableOf(call.tool.def)?.stopInside?.(call.request.callId).catch(() => undefined);
    const answer = await reconcileCall(call.tool, effectKeyOf(host.branchId, call.request.callId), state, call.finality);
    if (answer.decision === "found") return finishCall(host, call, answer.result, answer.result.status === "success" ? "succeeded" : "failed", attempts);
    if (answer.decision === "nothing_happened") {
      if (inFlight) return parkCall(host, call.request, `${reason}: lookup found no effect yet, and the request the stop cut may still land`, attempts);
      return finishCall(host, call, { status: "error", error: "aborted: the thread was stopped; lookup confirms nothing happened" }, "aborted", attempts);
    }
  }
  return parkCall(host, call.request, reason, attempts);
}

/**
 * Asks a reconcilable tool whether its effect happened and reads the answer by `finality`, the one
 * the call runs under (ReadyCall): found, certainly nothing (`not_found` + `final`), or unknown (with why).
 */
export async function reconcileCall(
  tool: CompiledTool,
  effectKey: string,
  state: ThreadState,
  finality: Finality | undefined,
): Promise<{ decision: "found"; result: ToolResult } | { decision: "nothing_happened" } | { decision: "unknown"; why: string }> {
  const answer = await lookup(tool, effectKey, state);
  if (answer.status === "found") return { decision: "found", result: foundResult(answer.value) };
  if (answer.status === "not_found" && finality === "final") return { decision: "nothing_happened" };
  return { decision: "unknown", why: answer.status === "not_found" ? "lookup found nothing, but its not_found is not final" : "lookup could not tell" };
}

/** Asks a reconcilable tool whether its effect happened; a throwing lookup answers `unknown`. */
export async function lookup(tool: CompiledTool, effectKey: string, state: ThreadState): Promise<LookupResult> {
  try {
    const answer = await tool.def.reconcile!.lookup(effectKey, state);
    if (answer && (answer.status === "found" || answer.status === "not_found" || answer.status === "unknown")) return answer;
    return { status: "unknown" };
  } catch {
    return { status: "unknown" };
  }
}

/** The recorded result of a `found` lookup. */
export function foundResult(value: string | ToolResult): ToolResult {
  return typeof value === "string" ? { status: "success", result: value } : normalizeResult(value);
}

/**
 * Stage 9 of the pipeline: a success whose value fails `outputSchema` is an error result
 * (`invalid_tool_output`, `errorDetails.path` into the value). `from` says whose result it is: a
 * tool's `execute` (it ran, so its effect happened) or a client's answer (a client tool's; nothing
 * ran in weft, and the text's paths start at the answer's `result` field).
 */
export function checkOutput(tool: CompiledTool, result: ToolResult, from: "tool" | "client" = "tool"): { result: ToolResult; extra?: FinishExtra } {
  const what = from === "client" ? "the client's answer" : "the tool ran and its effect happened, but its result";
  try {
    return checkOutputOrThrow(tool, result, what, from === "client" ? "result" : "");
  } catch (e) {
    return { result: { status: "error", error: `invalid_tool_output: ${what} could not be checked against outputSchema: ${errorMessage(e)}` } };
  }
}

/** {@link checkOutput}; `root` prefixes each issue's path in the text (an empty root keeps the schema's own labels). */
function checkOutputOrThrow(tool: CompiledTool, result: ToolResult, what: string, root: string): { result: ToolResult; extra?: FinishExtra } {
  if (!tool.output || result.status !== "success") return { result };
  let value: unknown = result.result;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      // A plain string result is checked as a string.
    }
  }
  const checked = tool.output.validate(value);
  if (checked.ok) return { result };
  const issues = root === "" ? checked.issues.map((i) => i.message) : checked.issues.map((i) => `${formatPath([root, ...i.path])}${i.message.slice(formatPath(i.path).length)}`);
  return {
    result: { status: "error", error: `invalid_tool_output: ${what} does not match outputSchema: ${issues.join("; ")}` },
    extra: { errorCode: "invalid_tool_output", errorDetails: { path: checked.issues[0]!.path, issues: checked.issues } },
  };
}
