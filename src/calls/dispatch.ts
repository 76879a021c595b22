/**
 * The one dispatch pipeline. Model calls, direct HTTP calls, `queueTool` and `invokeTool` all come
 * through `dispatch` (DESIGN.md):
 *
 * parse JSON -> validate -> timeArgs -> approval -> effect policy (dry-run, journal, retry, park)
 * -> execute -> output check -> record -> emit
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import { type CallRecord, type ToolResult, isFinalStatus, waitsForPersonStatus } from "../protocol.js";
import { wireValue } from "../json-shape.js";
import { canonicalJson } from "../tools/catalog.js";
import type { CompiledTool } from "../tools/catalog.js";
import { type ReadyCall, runCall } from "./execute.js";
import { finishCall, outcomeOf, rowOf } from "./record.js";
import { type CallOutcome, type CallRequest, type DispatchHost, effectKeyOf } from "./host.js";
import { policyFor } from "../tools/policy.js";
import { recoverCall, requestOf } from "./recover.js";
import { stopWaiting } from "./stop.js";
import { waitsForPerson } from "./suspend.js";
import { MAX_STEP_BYTES } from "../limits.js";
import { normalizeResult } from "./result.js";
import { checkTimeArgs } from "./time-args.js";
import { effectOrWrite, judgeApproval, judgeEffect } from "../tools/judge.js";
import type { Effect } from "../tools/types.js";

/** The pipeline's host, request and outcome shapes (src/tools/host.ts). */
export type { CallOutcome, CallRequest, DispatchHost } from "./host.js";
/** The outcome a stored call stands at (src/tools/record.ts), for callers of the pipeline. */
export { outcomeOf } from "./record.js";


/** Parses raw argument text; empty text means no arguments. */
function parseArgs(args: CallRequest["args"]): { ok: true; value: unknown } | { ok: false; message: string } {
  if (!("text" in args)) return { ok: true, value: args.value ?? {} };
  if (args.text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(args.text) as unknown };
  } catch (e) {
    return { ok: false, message: `arguments are not valid JSON (${errorMessage(e)}); raw text: ${args.text.slice(0, 200)}` };
  }
}

/**
 * Validates a parsed value against a tool's schema; a tool without `args` takes `{}`.
 * @returns the parsed input (defaults applied) or an `invalid_tool_input` error naming the path.
 */
export function validateInput(tool: CompiledTool, value: unknown): { ok: true; input: unknown } | { ok: false; error: WeftError } {
  if (tool.args === null) {
    const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
    if (isObject && Object.keys(value).length === 0) return { ok: true, input: undefined };
    const extra = isObject ? Object.keys(value)[0] : undefined;
    const message = extra ? `${extra}: this tool takes no arguments` : "input: this tool takes no arguments";
    return { ok: false, error: new WeftError("invalid_tool_input", message, { path: extra ? [extra] : [] }) };
  }
  const checked = tool.args.validate(value);
  if (checked.ok) return { ok: true, input: checked.data };
  return {
    ok: false,
    error: new WeftError("invalid_tool_input", checked.issues.map((i) => i.message).join("; "), {
      path: checked.issues[0]!.path,
      issues: checked.issues,
    }),
  };
}

/**
 * SHA-256 (hex) of the canonical JSON of an input as it goes on the wire (dates as ISO-8601 text):
 * what an approval is bound to. Distinct inputs have distinct canonical JSON, so distinct hashes.
 */
export async function argsHashOf(input: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(wireValue(input) ?? {})));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The input a stored call runs with: its arguments validated again, so a `Date` (or any parsed
 * value) is what `execute` gets, not its stored JSON text. A call bound to an argsHash runs only
 * with an input of that hash; the stored wire form is the last resort.
 */
export async function liveInput(tool: CompiledTool, record: CallRecord): Promise<unknown> {
  const parsed = parseArgs({ text: record.argsText });
  for (const sent of parsed.ok ? [parsed.value, record.input] : [record.input]) {
    const checked = validateInput(tool, sent);
    if (!checked.ok) continue;
    if (record.argsHash === undefined || (await argsHashOf(checked.input)) === record.argsHash) return checked.input;
  }
  return record.input;
}

/**
 * A parked call of a tool whose calls suspend (a prompt or agent called as a tool) runs again
 * once nothing inside it waits for a person: its `execute` resumes the nested work where it
 * stood. Any other parked call stays as it is until a person settles it.
 */
async function resumeSuspended(host: DispatchHost, record: CallRecord): Promise<CallOutcome> {
  if (await waitsForPerson(record, host.catalog)) return outcomeOf(host, record);
  const tool = host.catalog.get(record.toolName);
  const input = await liveInput(tool, record);
  // It ran before it suspended: a predicate failing now cannot refuse it (see judge.ts).
  const effect = effectOrWrite(tool, input);
  return runCall(host, { request: requestOf(record), tool, input, effect, existing: record, startedAt: Date.now(), ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}) });
}

/** What a call ended before execute needs to be recorded: its request and any row it has. */
interface Refusal {
  host: DispatchHost;
  request: CallRequest;
  effectKey: string;
  existing: CallRecord | undefined;
  startedAt: number;
}

/** A refusal before execute: recorded and emitted like any result, with no started event. */
function refuse(at: Refusal, error: WeftError): CallOutcome {
  const { host, request } = at;
  if (!at.existing) host.journal.insert({ ...rowOf(request, at.effectKey), status: "queued" });
  const result: ToolResult = { status: "error", error: `${error.code}: ${error.message}` };
  return finishCall(host, { request, startedAt: at.startedAt }, result, "failed", 0, {
    errorCode: error.code,
    ...(error.details ? { errorDetails: error.details } : {}),
  });
}

/** A predicate judging the call failed (judge.ts): the call ends with that error result, and never runs. */
function failed(at: Refusal, tool: CompiledTool, input: unknown, error: string): CallOutcome {
  const { host, request } = at;
  if (!at.existing) host.journal.insert({ ...rowOf(request, at.effectKey), status: "queued", input });
  return finishCall(host, { request, tool, startedAt: at.startedAt }, { status: "error", error }, "failed", 0);
}

/**
 * Runs one call through the pipeline and records exactly one final result for its id. A call id
 * that already has a result returns it and runs nothing; one interrupted by a restart goes through
 * recovery. Never throws for a tool's failure or a bad input: those are error results.
 */
export async function dispatch(host: DispatchHost, request: CallRequest): Promise<CallOutcome> {
  const startedAt = Date.now();
  const existing = request.fresh ? undefined : host.journal.get(request.callId);
  if (existing && existing.status !== "queued") {
    if (existing.status === "started") return recoverCall(host, existing);
    // Its run was stopped while it waited: stop is a transition of the waiting call too.
    if (host.signal?.aborted && waitsForPersonStatus(existing.status)) return stopWaiting(host, existing);
    return existing.status === "parked" ? resumeSuspended(host, existing) : outcomeOf(host, existing);
  }
  const effectKey = effectKeyOf(host.branchId, request.callId);
  const at: Refusal = { host, request, effectKey, existing, startedAt };
  let tool: CompiledTool;
  try {
    tool = host.catalog.get(request.toolName);
  } catch (e) {
    return refuse(at, e instanceof WeftError ? e : new WeftError("invalid_config", errorMessage(e)));
  }
  // The provider runs these itself; a plain call to one (a model that could not) is never run here.
  if (tool.def.executionMode === "provider") {
    return refuse(at, new WeftError("invalid_tool_input", `tool "${tool.name}" is executed by the provider (${String(tool.def.executionProvider)}), never by weft; this model cannot run it`, { path: [] }));
  }
  // Partial text may happen to parse; a call whose arguments were cut off still never runs.
  if (request.cutOff === "length") {
    const raw = "text" in request.args ? request.args.text : "";
    const message = `the arguments were cut off by your output-token limit (finish reason "length") before this call was complete; it did not run. Call it again with smaller arguments, or split the work into several smaller calls; raw text: ${raw.slice(0, 200)}`;
    return refuse(at, new WeftError("invalid_tool_input", message, { path: [] }));
  }
  if (request.cutOff) {
    return refuse(at, new WeftError("invalid_tool_input", "the arguments were cut off: the model's stream ended before this call was complete", { path: [] }));
  }
  if (request.oversized !== undefined) {
    return refuse(
      at,
      new WeftError("payload_too_large", `arguments: ${request.oversized} bytes, too large to store with the model's step (at most ${MAX_STEP_BYTES} bytes of text and arguments); the call did not run`, {
        path: [],
        limit: MAX_STEP_BYTES,
      }),
    );
  }
  const parsed = parseArgs(request.args);
  if (!parsed.ok) return refuse(at, new WeftError("invalid_tool_input", parsed.message, { path: [] }));
  const checked = request.validated && "value" in request.args ? { ok: true as const, input: request.validated.input } : validateInput(tool, parsed.value);
  if (!checked.ok) return refuse(at, checked.error);
  const input = checked.input;
  if (host.asOf) {
    try {
      checkTimeArgs(tool, parsed.value, input, host.asOf);
    } catch (e) {
      return refuse(at, e instanceof WeftError ? e : new WeftError("invalid_tool_input", errorMessage(e)));
    }
  }
  // The predicates judging the call are author code: one rule for their failures, on every path (judge.ts).
  const effect = request.validated?.effect ?? judgeEffect(tool, input);
  if (!effect.ok) return failed(at, tool, input, effect.error);
  const ready = { request, tool, input, effect: effect.value, startedAt, ...(existing ? { existing } : {}) };
  // A stopped run starts nothing, not even a wait for a person: runCall records it aborted.
  if (host.signal?.aborted) return runCall(host, ready);
  const asked = judgeApproval(tool, input, () => host.stateFor({ callId: request.callId, tool, ...(request.turnId ? { turnId: request.turnId } : {}) }));
  const approval = asked instanceof Promise ? await asked : asked;
  if (!approval.ok) return failed(at, tool, input, approval.error);
  if (approval.value) {
    const argsHash = await argsHashOf(input);
    if (!existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued" });
    host.journal.awaitApproval(request.callId, input, argsHash);
    host.emit("tool_call_approval_requested", { callId: request.callId, toolName: tool.name, input: wireValue(input) ?? {}, argsHash });
    return outcomeOf(host, host.journal.get(request.callId)!);
  }
  if (stubbedHere(host, effect.value)) {
    if (!existing) host.journal.insert({ ...rowOf(request, effectKey), status: "queued", input });
    return stubCall(host, ready);
  }
  return runCall(host, ready);
}

/** Whether the effect policy answers this call with a stub: a dry-run thread's writes and idempotent calls. */
export function stubbedHere(host: DispatchHost, effect: Effect): boolean {
  return host.dryRun && policyFor(effect, "dry_run") === "stub";
}

/**
 * The tools reference: a dry-run thread answers writes and idempotent calls with `dryRunResult(input)` or
 * "Operation acknowledged." instead of running them; approved calls included.
 */
export async function stubCall(host: DispatchHost, call: ReadyCall): Promise<CallOutcome> {
  let stub: ToolResult = { status: "success", result: "Operation acknowledged." };
  if (call.tool.def.dryRunResult) {
    try {
      stub = normalizeResult(await call.tool.def.dryRunResult(call.input));
    } catch (e) {
      stub = { status: "error", error: `dryRunResult failed: ${errorMessage(e)}` };
    }
  }
  return finishCall(host, call, stub, stub.status === "success" ? "succeeded" : "failed", 0, { stubbed: true });
}
