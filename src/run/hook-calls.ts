/**
 * Runs the hooks of `agents/hooks/` for one thread. Every hook gets the `ThreadState` of the
 * execution it runs under. A hook that throws becomes a `hook_failed` error naming the hook; the
 * caller lets it end the turn.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { EventPayloads, Message } from "../protocol.js";
import type { HookDefinition, HookName, HookSignatures } from "./hooks.js";
import type { NewTurnMessage } from "./messages.js";
import { PROMPT_CALL_KEY } from "./prompt.js";
import type { CallExecution } from "../calls/call.js";
import type { RunWorld } from "./world.js";
import { createThreadState } from "./state.js";

/** The hook registered under `name`, if any. */
function hookOf<N extends HookName>(engine: RunWorld, name: N): HookSignatures[N] | undefined {
  const hooks = engine.registry.hooks ?? {};
  const def = Object.hasOwn(hooks, name) ? (hooks[name] as HookDefinition<N>) : undefined;
  return def?.run;
}

/** Calls one hook, turning a throw into `hook_failed` naming it. */
async function call<N extends HookName, R>(name: N, run: () => R | Promise<R>): Promise<R> {
  try {
    return await run();
  } catch (e) {
    throw new WeftError("hook_failed", `hook "${name}" threw: ${errorMessage(e)}`, { hook: name });
  }
}

/** Whether the thread has a hook of that name (so callers skip work for absent hooks). */
export function hasHook(engine: RunWorld, name: HookName): boolean {
  return hookOf(engine, name) !== undefined;
}

/**
 * Stores messages through the create-message hooks: every `before_create_message` runs first (a
 * throw writes nothing), then the messages land in one transaction (with `also`), then every
 * `after_create_message` runs.
 * @throws WeftError `hook_failed` naming the hook; `invalid_config` when a hook returns a message of another role.
 */
export async function createMessages(engine: RunWorld, execution: CallExecution | null, messages: NewTurnMessage[], also?: () => void): Promise<Message[]> {
  const before = hookOf(engine, "before_create_message");
  const after = hookOf(engine, "after_create_message");
  const state = before || after ? createThreadState(engine, undefined, execution) : null;
  const prepared: NewTurnMessage[] = [];
  for (const message of messages) {
    if (!before) {
      prepared.push(message);
      continue;
    }
    const replaced = await call("before_create_message", () => before(state!, { ...message }));
    if (replaced === undefined || replaced === null) {
      prepared.push(message);
    } else if (typeof replaced !== "object" || replaced.role !== message.role || typeof replaced.content !== "string") {
      throw new WeftError("hook_failed", `hook "before_create_message" returned ${JSON.stringify(replaced)}; return a message of the same role with string content, or nothing`, {
        hook: "before_create_message",
      });
    } else {
      // Where the message sits (its call, depth and side) is the runtime's, not the hook's.
      prepared.push({ ...replaced, ...pick(message, replaced) });
    }
  }
  const stored = engine.appendMessages(prepared, also);
  if (after) for (const message of stored) await call("after_create_message", () => after(state!, message));
  return stored;
}

/** The fields that place a message in the conversation (its nested run's tag among them). */
function pick(m: NewTurnMessage, replaced: NewTurnMessage): Partial<NewTurnMessage> {
  const run = m.metadata?.[PROMPT_CALL_KEY];
  return {
    ...(run !== undefined ? { metadata: { ...replaced.metadata, [PROMPT_CALL_KEY]: run } } : {}),
    ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}),
    ...(m.toolCallId ? { toolCallId: m.toolCallId } : {}),
    ...(m.name ? { name: m.name } : {}),
    ...(m.depth ? { depth: m.depth } : {}),
    ...(m.side ? { side: m.side } : {}),
  };
}

/**
 * The messages of one model request, through `filter_messages`. `snapshot` is taken once, before
 * the hook runs: a message the hook (or anything else) injects meanwhile enters the next request.
 * @throws WeftError `hook_failed` naming the hook, also when it returns something other than a list of messages.
 */
export async function filterMessages(engine: RunWorld, execution: CallExecution | null, snapshot: readonly Message[]): Promise<Message[]> {
  const filter = hookOf(engine, "filter_messages");
  if (!filter) return [...snapshot];
  const state = createThreadState(engine, undefined, execution);
  const out = await call("filter_messages", () => filter(state, snapshot.map((m) => ({ ...m }))));
  if (out === undefined || out === null) return [...snapshot];
  if (!Array.isArray(out) || out.some((m) => typeof m !== "object" || m === null || typeof m.role !== "string" || typeof m.content !== "string")) {
    throw new WeftError("hook_failed", 'hook "filter_messages" must return a list of messages, or nothing', { hook: "filter_messages" });
  }
  return out;
}

/** Runs a tool-call hook (`tool_call_started` or `tool_call_finished`) under `execution`. */
export async function toolHook<N extends "tool_call_started" | "tool_call_finished">(
  engine: RunWorld,
  execution: CallExecution | null,
  name: N,
  data: EventPayloads[N],
): Promise<void> {
  const hook = hookOf(engine, name);
  if (!hook) return;
  const state = createThreadState(engine, undefined, execution);
  await call(name, () => (hook as (s: typeof state, d: EventPayloads[N]) => void | Promise<void>)(state, data));
}
