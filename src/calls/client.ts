/**
 * Client tools (`executionMode: "client"`): the client that drives the thread answers each call.
 * A call goes through the pipeline up to execute like any other (parse, validate, approval, the
 * effect policy); there, instead of running anything, it is journaled and parked for the client
 * (one status for every call waiting on someone outside: `parked`, told apart by its tool). The
 * client's answer is a settlement of that parked call (decide.ts) and is recorded through the
 * same stages as a result of `execute`: output check, then record (cap, once) and emit.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import { wireValue } from "../json-shape.js";
import type { ClientAnswer, EventPayloads, ToolResult } from "../protocol.js";
import type { CompiledTool } from "../tools/catalog.js";
import { startedAs } from "../tools/started-as.js";
import { type CallOutcome, type CallRequest, type ReadyCall, effectKeyOf } from "./call.js";
import type { BookedCall, CallContext } from "./context.js";
import { checkOutput } from "./execute.js";
import { requestOf } from "./input.js";
import { finishCall, parkCall, rowOf } from "./record.js";
import { normalizeResult } from "./result.js";

/** The park reason of a call waiting for the client's answer. */
export const CLIENT_WAIT_REASON = "waiting for the client's answer (a client tool)";


/** Whether `def` is a client tool's: its calls wait for the client's answer, and nothing runs in weft. */
export function isClientTool(def: { executionMode?: string }): boolean {
  return def.executionMode === "client";
}

/**
 * Whether parked call `record` waits for the client's answer: parked as one by a client tool that
 * still is one. Its tool alone does not say: recovery parks a client tool's call for a person when
 * its input fails the schema now, and a deploy may make a parked write's tool a client tool.
 */
export function waitsForClient(record: { status: string; parkReason?: string }, tool: CompiledTool): boolean {
  return record.status === "parked" && record.parkReason === CLIENT_WAIT_REASON && isClientTool(tool.def);
}

/**
 * Stage 8 of a client tool's call: its row (started, under the class it is judged), then
 * `tool_call_started` and its hook as for any call, then the park, whose `tool_call_parked` tells
 * the client (with the input) that the call is its to answer. A restart while the hook runs finds
 * it started: recovery parks it for the client again ({@link parkForClient}).
 */
export async function awaitClient(ctx: CallContext, call: ReadyCall): Promise<CallOutcome> {
  const { request, tool, input } = call;
  if (call.existing) ctx.journal.start(request.callId, input, startedAs(call));
  else ctx.journal.insert({ ...rowOf(request, effectKeyOf(ctx.branchId, request.callId)), status: "started", input, effect: startedAs(call) });
  if (!request.announced) {
    const started: EventPayloads["tool_call_started"] = { callId: request.callId, toolName: tool.name, source: request.source, input: input ?? {} };
    ctx.emit("tool_call_started", started);
    try {
      await ctx.beforeExecute?.(started);
    } catch (e) {
      // The hook failed (or the run was stopped while it ran): the call ends before the client is asked.
      const aborted = ctx.signal?.aborted === true;
      const error = aborted ? "aborted: the thread was stopped before the client was asked" : `the tool_call_started hook failed before the client was asked: ${errorMessage(e)}`;
      const outcome = finishCall(ctx, call, { status: "error", error }, aborted ? "aborted" : "failed", 0);
      if (aborted) return outcome;
      throw e;
    }
  }
  const parked = parkForClient(ctx, request, input, (call.existing?.attempts ?? 0) + 1);
  // Without an output gate nothing holds the answer back until the park is durable: wait for it.
  if (ctx.outputGate !== true) await ctx.flush();
  return parked;
}

/** Parks a client tool's call for the client's answer, through the one module that writes outcomes (record.ts). */
export function parkForClient(ctx: CallContext, request: CallRequest, input: unknown, attempts: number): CallOutcome {
  return parkCall(ctx, request, CLIENT_WAIT_REASON, attempts, { client: true, input: wireValue(input) ?? {} });
}

/**
 * Records the client's answer to parked call `record` of client tool `tool`: the result goes
 * through the output check (`outputSchema`), then is capped and recorded once, like a result of
 * `execute`; an error answer is an error result the model sees. `answeredBy` (the verified user
 * whose client answered) is recorded as the call's `decidedBy`.
 * @throws WeftError `call_not_waiting` when the call does not wait for the client ({@link waitsForClient}: a person settles it instead).
 */
export function answerCall(ctx: CallContext, record: BookedCall, tool: CompiledTool, answer: ClientAnswer, answeredBy?: string): CallOutcome {
  if (!waitsForClient(record, tool)) {
    throw new WeftError("call_not_waiting", `call ${record.callId} (${record.toolName}) is parked for a person to settle (POST /threads/:id/calls/:callId/settle), not waiting for a client's answer`, {
      callId: record.callId,
      status: record.status,
    });
  }
  // Recorded as `decidedBy`, as a person's settlement is: the verified user whose client answered.
  if (answeredBy !== undefined) ctx.journal.setDecidedBy(record.callId, answeredBy);
  const call = { request: requestOf(record), tool, startedAt: record.startedAt ?? record.createdAt };
  if ("error" in answer) return finishCall(ctx, call, { status: "error", error: answer.error }, "failed", record.attempts);
  const given: ToolResult = normalizeResult({ status: "success", result: answer.result });
  const checked = checkOutput(tool, given, "client");
  return finishCall(ctx, call, checked.result, checked.result.status === "success" ? "succeeded" : "failed", record.attempts, checked.extra);
}
