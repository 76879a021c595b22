/**
 * A prompt called as a tool: the call runs the prompt as a nested loop inside the calling
 * execution, one level deeper. Its messages are stored with that depth (so the caller's history
 * never sees them and `getMessages({ maxDepth })` can leave them out) and tagged with the call's
 * id (`metadata.promptCall`), `promptPath` gains the prompt's name, and the tool result is the
 * nested loop's final text.
 *
 * The nested loop is stored as it goes, so a call can stop and go on where it stood: when a call
 * inside it waits for a person, the prompt call waits too (it suspends, and the turn waits), and
 * when a restart cuts it, recovery resumes it. Either way nothing inside runs twice: each nested
 * call keeps its own journal entry, and the steps already stored are not requested again.
 * @module
 */
import * as z from "zod";
import { WeftError } from "../errors.js";
import type { Message, ToolCallRequest, ToolResult } from "../protocol.js";
import { Execution } from "./execution.js";
import { PROMPT_CALL_KEY, type PromptDefinition, systemText } from "./prompt.js";
import { DEFAULT_MAX_STEPS, runTurn } from "./turn.js";
import { callIdOfEffectKey } from "../calls/call.js";
import { CallSuspended, markResumable, waitsForPerson } from "../calls/suspend.js";
import type { AnyToolDefinition, LookupResult, ToolCallContext } from "../tools/types.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { RunWorld } from "./world.js";
import { conversationWindow, nestedWindow } from "./history.js";
import { fallbacksFor, modelFor } from "./model-choice.js";
import { runOf } from "./state.js";
import { MAX_DEPTH } from "./messages.js";
import { finalAnswerSchema } from "./final-answer.js";
import { Conversation } from "./conversation.js";

/** Input of a prompt or agent called as a tool that declares no `args`. */
export const DEFAULT_CALL_ARGS = z.object({ input: z.string().describe("What to ask, in plain language") });

/** The first user message of a nested run: `input` when that is all there is, else the arguments as JSON. */
export function openingMessage(args: Record<string, unknown>): string {
  const keys = Object.keys(args);
  return keys.length === 1 && typeof args.input === "string" ? args.input : JSON.stringify(args);
}

/** Deadline of one run of a nested loop: it holds model steps, not one request (`timeoutMs`). */
export const NESTED_RUN_TIMEOUT_MS = 15 * 60_000;

/**
 * The tool definition of prompt `name`. Effect: `reconcilable`. The call's own work is its nested
 * loop, whose steps and calls are stored as they happen; `lookup` finds the loop's final answer
 * when it finished, and otherwise running the call again resumes the loop where it stood. So a
 * restart that cuts the call resumes it, as the effect table does for reconcilable calls, and no
 * write inside it runs twice (each has its own journal entry and effect).
 */
export function promptTool(engine: RunWorld, name: string, prompt: PromptDefinition): AnyToolDefinition {
  const def = {
    kind: "tool",
    description: prompt.toolDescription,
    args: (prompt.args ?? DEFAULT_CALL_ARGS) as AnyToolDefinition["args"],
    effect: "reconcilable",
    reconcile: {
      finality: "final",
      lookup: async (effectKey: string, state: ThreadState): Promise<LookupResult> => {
        const callId = callIdOfEffectKey(engine.meta, effectKey);
        const ends = runEnds(engine, callId);
        const answer = finalAnswer(ends);
        if (answer !== undefined) return { status: "found", value: answer };
        // Asked at a stop: a nested run whose calls ran did work (a write, say), so it ended stopped, not "nothing happened".
        if (runOf(state)?.signal.aborted === true && nestedCallRan(engine, callId)) {
          return { status: "found", value: { status: "error", error: `prompt "${name}" was stopped with its caller's turn; its answer so far: ${ends.last?.role === "assistant" && ends.last.content ? ends.last.content : "none"}` } };
        }
        return { status: "not_found" };
      },
    },
    timeoutMs: NESTED_RUN_TIMEOUT_MS,
    execute: (state: ThreadState, args: Record<string, unknown>, context: ToolCallContext) => runPrompt(engine, name, prompt, state, args, context),
  } as AnyToolDefinition;
  return markResumable(def, { stillWaiting: async (callId) => nestedCallsWait(engine, callId) });
}

/** Whether a call of call `callId`'s nested run has run (its work may have happened). */
function nestedCallRan(engine: RunWorld, callId: string): boolean {
  const PAGE = 200;
  for (let after = 0; ; ) {
    const page = engine.store.messages.ofPromptCall(callId, after, Number.MAX_SAFE_INTEGER, PAGE, "asc");
    if (page.some((m) => (m.toolCalls ?? []).some((c) => (engine.store.calls.get(c.id)?.attempts ?? 0) > 0))) return true;
    if (page.length < PAGE) return false;
    after = page.at(-1)!.id;
  }
}

/** The first (opening) and last stored messages of call `callId`'s nested run; none before it starts. */
function runEnds(engine: RunWorld, callId: string): { first?: Message; last?: Message } {
  const [first] = engine.store.messages.ofPromptCall(callId, 0, Number.MAX_SAFE_INTEGER, 1, "asc");
  const [last] = engine.store.messages.ofPromptCall(callId, 0, Number.MAX_SAFE_INTEGER, 1, "desc");
  return { ...(first ? { first } : {}), ...(last ? { last } : {}) };
}

/** The final text of a finished nested run: its last message (not its opening) is an answer with no calls. */
function finalAnswer({ first, last }: { first?: Message; last?: Message }): string | undefined {
  return last && first && last.id !== first.id && last.role === "assistant" && !openCalls(last) && last.metadata?.queued === undefined ? last.content : undefined;
}

/** The calls of a step still waiting for their results, when `last` is the step's message. */
function openCalls(last: Message | undefined): ToolCallRequest[] | null {
  if (!last || last.role !== "assistant" || last.metadata?.queued !== undefined) return null;
  const calls = (last.toolCalls ?? []).filter((c) => !c.providerExecuted);
  return calls.length > 0 ? calls : null;
}

/** True while a call of the nested run (or of a run nested in it) waits for a person. */
async function nestedCallsWait(engine: RunWorld, callId: string): Promise<boolean> {
  for (const call of openCalls(runEnds(engine, callId).last) ?? []) {
    const record = engine.store.calls.get(call.id);
    if (record && (await waitsForPerson(record, engine.callables.everything()))) return true;
  }
  return false;
}

/** Runs (or resumes) the nested loop of one prompt call; its final text is the tool result. */
async function runPrompt(
  engine: RunWorld,
  name: string,
  prompt: PromptDefinition,
  state: ThreadState,
  args: Record<string, unknown>,
  context: ToolCallContext,
): Promise<ToolResult> {
  // Called from a turn (or a prompt) the call nests in that execution; called at rest (a direct
  // call, or recovery) it nests in an execution of its own, so its messages still sit below the conversation.
  let parent = runOf(state);
  if (!parent) {
    const model = await modelFor(engine);
    parent = Execution.forTurn({ flowId: engine.newId("flow"), model, history: () => conversationWindow(engine, model) });
  }
  const depth = parent.depth + 1;
  if (depth > MAX_DEPTH) {
    throw new WeftError("invalid_request", `prompt "${name}" would nest ${depth} levels deep; prompts nest at most ${MAX_DEPTH} levels`);
  }
  const tag = { [PROMPT_CALL_KEY]: context.callId };
  let opening: Message | undefined = runEnds(engine, context.callId).first;
  const resumed = opening !== undefined;
  // The run's window, read from its opening message on; sibling runs at this depth stay out.
  const history = (): Message[] => nestedWindow(engine, context.callId, opening, model);
  // The prompt's own model when it names one; otherwise the model of the run that called it.
  const own = { side: "a" as const, promptName: name, ...(prompt.model !== undefined ? { model: prompt.model } : {}), ...(prompt.fallbackModels ? { fallbackModels: prompt.fallbackModels } : {}), endsTurn: true };
  const model = prompt.model !== undefined ? await modelFor(engine, own) : parent.model;
  // The prompt's own fallbacks; a prompt that runs on its caller's model keeps the caller's.
  const fallbacks = prompt.fallbackModels !== undefined ? await fallbacksFor(engine, own) : prompt.model !== undefined ? [] : parent.fallbacks;
  // A resumed run goes on counting the steps it took.
  const steps = opening ? engine.store.messages.promptCallSteps(context.callId) : 0;
  const child = Execution.nested(parent, { flowId: `prompt_${context.callId}`, model, fallbacks, history, promptName: name, steps: { total: steps, a: steps, b: 0 } });
  // A stop or cut may have come during the awaits above: the listener alone would never hear it.
  if (context.signal.aborted) child.abort(context.signal.reason);
  else context.signal.addEventListener("abort", () => child.abort(context.signal.reason), { once: true });
  if (!opening) [opening] = await engine.createMessages(child, [{ role: "user", content: openingMessage(args), depth, metadata: tag }]);

  const system = prompt.system !== undefined ? systemText(prompt.system, engine.meta.arguments)! : undefined;
  const conversation = new Conversation(engine, child, {
    system: () => system,
    modelSettings: () => prompt.modelSettings,
    finalAnswer: () => (prompt.outputSchema === undefined ? undefined : finalAnswerSchema(`prompt "${name}"`, prompt.outputSchema)),
    maxSteps: prompt.maxSteps ?? DEFAULT_MAX_STEPS,
    history,
    // The open step is the last stored step whose calls have no results yet.
    pendingStep: () => openCalls(history().at(-1)),
    mark: (messages) => messages.map((m) => ({ ...m, depth, metadata: { ...m.metadata, ...tag } })),
    parentCallId: context.callId,
  });
  // Resumed with no step open: a restart may have cut its next step mid-stream, which is asked again from the start.
  if (resumed && !openCalls(history().at(-1))) engine.emit("model_step_discarded", { turnId: child.flowId, step: steps + 1, attempt: 1, reason: "the thread restarted during this step" });
  const end = await runTurn(conversation, child);
  if (end.status === "failed") return { status: "error", error: `prompt "${name}" failed: ${end.error ?? "unknown error"}` };
  if (end.status === "waiting") {
    const on = end.waitingOn ?? [];
    throw new CallSuspended(`prompt "${name}" waits for a person: ${on.map((id) => `call ${id}`).join(", ")} inside it`, on);
  }
  if (end.status === "stopped" && end.error) return { status: "error", error: `prompt "${name}" stopped: ${end.error}` };
  const answer = [...history()].reverse().find((m) => m.role === "assistant" && m.content !== "")?.content ?? "";
  return { status: "success", result: answer };
}
