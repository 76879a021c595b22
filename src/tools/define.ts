/**
 * `defineTool` (the Standard Agents tools API) and the definition checks shared by the build step and first use.
 * @module
 */
import { WeftError } from "../errors.js";
import {
  type AnyToolDefinition,
  type DefineToolOptions,
  type JsonSchemaObject,
  type ToolArgs,
  type ToolDefinition,
  type ToolTenvs,
  isEffect,
  missingForEffect,
} from "./types.js";
import type { ThreadState } from "./thread-state.js";

/** Tool names the model sees (the Standard Agents tools API's name rule; docs/writing-a-tool.md, "The build and its rules"). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Declares a tool. Returns a plain object and registers nothing; the generated registry does
 * that from the file name (the Standard Agents tools API, "File Structure").
 *
 * @example
 * export default defineTool({
 *   description: "Look up an order by ID",
 *   args: z.object({ orderId: z.string() }),
 *   execute: async (state, args) => ({ status: "success", result: `Order ${args.orderId} found` }),
 * });
 */
export function defineTool<
  State = ThreadState,
  Args extends ToolArgs | JsonSchemaObject | null = null,
  Tenvs extends ToolTenvs | null = null,
  const Uses extends readonly string[] = readonly string[],
>(options: DefineToolOptions<State, Args, Tenvs, Uses>): ToolDefinition<State, Args, Tenvs, Uses> {
  return { ...options, kind: "tool" };
}

/**
 * Checks a definition's shape and the pairing rules of weft's effect table. Argument schemas are checked when
 * they are compiled (`compileTool`).
 * @throws WeftError `capability_missing` when `execute` is not a function (a tool weft runs);
 *   `invalid_config` for any other rule (a client tool with `execute`, say), naming the tool and the rule broken.
 */
export function checkToolDefinition(name: string, def: unknown): asserts def is AnyToolDefinition {
  const fail = (rule: string): never => {
    throw new WeftError("invalid_config", `tool "${name}": ${rule}`, { tool: name });
  };
  if (!TOOL_NAME_PATTERN.test(name)) fail(`name must match ${TOOL_NAME_PATTERN.source}`);
  if (typeof def !== "object" || def === null) fail("the default export must be defineTool({...})");
  const d = def as Record<string, unknown>;
  if (d.kind !== "tool") fail("the default export must be the value returned by defineTool({...})");
  if (typeof d.description !== "string" || d.description.trim() === "") fail("description must be a non-empty string");
  // A client tool's body is the client's: one here as well would be a second way to answer its calls.
  if (d.executionMode === "client") {
    if (d.execute !== undefined) fail('executionMode "client" takes no execute: the client answers each call (POST /threads/:id/calls/:callId/result); remove execute, or executionMode to run it in weft');
    if (d.executionProvider !== undefined) fail('executionProvider goes only with executionMode "provider"');
  } else if (typeof d.execute !== "function") {
    // A tool with no body is a missing capability, not a bad option (the threads tool reference, `execute`).
    throw new WeftError("capability_missing", `tool "${name}": execute must be a function: weft has no body to run`, { tool: name });
  }
  if (d.effect !== undefined && typeof d.effect !== "function" && !isEffect(d.effect)) {
    fail(`effect must be one of read, write, idempotent, reconcilable or a predicate; got ${JSON.stringify(d.effect)}`);
  }
  // weft's effect table: dedupWindowMs exactly when idempotent, reconcile exactly when reconcilable.
  const missing = missingForEffect(d.effect, d);
  if (missing) fail(`effect ${String(d.effect)} requires ${missing}`);
  if (d.effect !== "idempotent" && d.dedupWindowMs !== undefined && typeof d.effect !== "function") fail("dedupWindowMs is only allowed with effect idempotent");
  if (d.effect !== "reconcilable" && d.reconcile !== undefined && typeof d.effect !== "function") fail("reconcile is only allowed with effect reconcilable");
  // Called only in a dry-run thread or at approval, where a wrong type would fail each call instead of the build.
  if (d.dryRunResult !== undefined && typeof d.dryRunResult !== "function") fail("dryRunResult must be a function of the input: dryRunResult: (input) => \"...\"");
  if (d.needsApproval !== undefined && typeof d.needsApproval !== "boolean" && typeof d.needsApproval !== "function") fail("needsApproval must be true, false or a function (input, state) => boolean");
  if (d.executionMode !== undefined && d.executionMode !== "local" && d.executionMode !== "provider" && d.executionMode !== "client") {
    fail('executionMode must be "local", "provider" or "client"');
  }
  if (d.executionMode === "provider" && (typeof d.executionProvider !== "string" || !/^[a-z][a-z0-9-]*(\.[A-Za-z0-9_.-]+)?$/.test(d.executionProvider))) {
    fail('executionMode "provider" needs executionProvider: the provider ("openai") or its tool ("anthropic.web_search_20250305")');
  }
  if (d.uses !== undefined && (!Array.isArray(d.uses) || d.uses.some((u) => typeof u !== "string"))) {
    fail("uses must be an array of tool names");
  }
  if (d.maxAttempts !== undefined && (!Number.isInteger(d.maxAttempts) || (d.maxAttempts as number) < 1)) {
    fail("maxAttempts must be a positive integer");
  }
  if (d.timeoutMs !== undefined && (!Number.isInteger(d.timeoutMs) || (d.timeoutMs as number) < 1)) {
    fail("timeoutMs must be a positive integer (milliseconds)");
  }
}

/**
 * Why only a model's step can call tool `name`, or null when any caller can: a client tool's call
 * is answered by the client of the thread's chat, and a provider tool runs at the model's provider;
 * a direct or MCP call, a schedule or `queueTool` has neither. Direct callers get it as
 * `tool_not_callable`; a schedule naming such a tool is refused when it is made.
 */
export function modelOnlyReason(name: string, def: { executionMode?: unknown; executionProvider?: unknown }): string | null {
  if (def.executionMode === "client") return `tool "${name}" is a client tool (executionMode "client"): the client of the thread's chat answers it, so only the model can call it`;
  if (def.executionMode === "provider") return `tool "${name}" is executed by the provider (${String(def.executionProvider)}), never by weft, so only the model can call it`;
  return null;
}
