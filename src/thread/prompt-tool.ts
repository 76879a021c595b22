/**
 * A prompt called as a tool: the call runs the prompt as a nested loop inside the calling
 * execution, one level deeper. Its messages are stored with that depth (so the caller's history
 * never sees them and `getMessages({ maxDepth })` can leave them out), `promptPath` gains the
 * prompt's name, and the tool result is the nested loop's final text.
 * @module
 */
import * as z from "zod";
import { WeftError } from "../errors.js";
import type { Message, ToolResult } from "../protocol.js";
import { Execution } from "../run/execution.js";
import { type PromptDefinition, systemText } from "../run/prompt.js";
import { DEFAULT_MAX_STEPS, type TurnHost, runTurn } from "../run/turn.js";
import type { AnyToolDefinition } from "../tools/types.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { ThreadEngine } from "./engine.js";
import { filterMessages } from "./hooks.js";
import { conversationWindow, nestedWindow } from "./history.js";
import { fallbacksFor, modelFor } from "./model-choice.js";
import { MAX_DEPTH } from "./store/messages.js";
import { announcing, modelTools, uniqueCallIds } from "./turn-host.js";

/** Input of a prompt or agent called as a tool that declares no `args`. */
export const DEFAULT_CALL_ARGS = z.object({ input: z.string().describe("What to ask, in plain language") });

/** The first user message of a nested run: `input` when that is all there is, else the arguments as JSON. */
export function openingMessage(args: Record<string, unknown>): string {
  const keys = Object.keys(args);
  return keys.length === 1 && typeof args.input === "string" ? args.input : JSON.stringify(args);
}

/**
 * The tool definition of prompt `name`. Effect: undeclared (a write), because the nested loop may
 * run writes; a restart that cuts it parks the call for a person instead of running it again.
 */
export function promptTool(engine: ThreadEngine, name: string, prompt: PromptDefinition): AnyToolDefinition {
  return {
    kind: "tool",
    description: prompt.toolDescription,
    args: (prompt.args ?? DEFAULT_CALL_ARGS) as AnyToolDefinition["args"],
    execute: (state: ThreadState, args: Record<string, unknown>) => runPrompt(engine, name, prompt, state, args),
  } as AnyToolDefinition;
}

/** Runs the nested loop of one prompt call; its final text is the tool result. */
async function runPrompt(engine: ThreadEngine, name: string, prompt: PromptDefinition, state: ThreadState, args: Record<string, unknown>): Promise<ToolResult> {
  // Called from a turn (or a prompt) the call nests in that execution; called at rest (a direct
  // call) it nests in an execution of its own, so its messages still sit below the conversation.
  let parent = Execution.of(state.execution);
  if (!parent) {
    const model = await modelFor(engine);
    parent = Execution.forTurn({ flowId: engine.newId("flow"), model, history: () => conversationWindow(engine, model) });
  }
  if (parent.depth + 1 > MAX_DEPTH) {
    throw new WeftError("invalid_request", `prompt "${name}" would nest ${parent.depth + 1} levels deep; prompts nest at most ${MAX_DEPTH} levels`);
  }
  const { store } = engine;
  let opening: Message | undefined;
  // The prompt's own model when it names one; otherwise the model of the run that called it.
  const own = { side: "a" as const, promptName: name, ...(prompt.model !== undefined ? { model: prompt.model } : {}), ...(prompt.fallbackModels ? { fallbackModels: prompt.fallbackModels } : {}), endsTurn: true };
  const model = prompt.model !== undefined ? await modelFor(engine, own) : parent.model;
  // The prompt's own fallbacks; a prompt that runs on its caller's model keeps the caller's.
  const fallbacks = prompt.fallbackModels !== undefined ? await fallbacksFor(engine, own) : prompt.model !== undefined ? [] : parent.fallbacks;
  const depth = parent.depth + 1;
  const history = (): Message[] => nestedWindow(engine, depth, opening, model);
  const child = Execution.nested(parent, { flowId: engine.newId("flow"), model, fallbacks, history, promptName: name });
  [opening] = await engine.createMessages(child, [{ role: "user", content: openingMessage(args), depth: child.depth }]);

  const host: TurnHost = {
    threadId: engine.meta.threadId,
    ...(prompt.system !== undefined ? { system: systemText(prompt.system, engine.meta.arguments)! } : {}),
    maxSteps: prompt.maxSteps ?? DEFAULT_MAX_STEPS,
    tools: () => modelTools(engine.catalogFor(child)),
    ...announcing(engine, child),
    history,
    prepareMessages: (snapshot) => filterMessages(engine, child, snapshot),
    async commit(messages) {
      await engine.createMessages(
        child,
        messages.map((m) => ({ ...m, depth: child.depth })),
      );
      await engine.flush();
    },
    // A nested step is not resumed after a restart: the prompt call itself is recovered (parked).
    pendingStep: () => null,
    dispatch: (execution, request) => engine.dispatchWithQueue(execution, request),
    emit: (type, data) => engine.emit(type, data),
    uniqueIds: (calls) => uniqueCallIds(calls, (id) => store.calls.get(id) !== undefined),
    onStep: () => {},
  };
  const end = await runTurn(host, child);
  const answer = [...history()].reverse().find((m) => m.role === "assistant" && m.content !== "")?.content ?? "";
  if (end.status === "failed") return { status: "error", error: `prompt "${name}" failed: ${end.error ?? "unknown error"}` };
  if (end.status === "waiting") {
    return { status: "error", error: `prompt "${name}" stopped: a call inside it waits for a person (${(end.waitingOn ?? []).join(", ")}), which nested prompts cannot do` };
  }
  if (end.status === "stopped" && end.error) return { status: "error", error: `prompt "${name}" stopped: ${end.error}` };
  return { status: "success", result: answer };
}
