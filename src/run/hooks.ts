/**
 * `defineHook`: lifecycle hooks declared in `agents/hooks/<hook_name>.ts`, one hook per file, the
 * file named after the hook it defines. Hooks run inside the thread with the same `ThreadState`
 * tools get; a hook that throws fails its turn with an error naming the hook.
 * @module
 */
import type { EventPayloads, Message } from "../protocol.js";
import type { ThreadState } from "../tools/thread-state.js";
import { configFailure } from "./prompt.js";
import type { NewTurnMessage } from "./messages.js";

/**
 * What each hook receives and may return.
 * - `tool_call_started`: a call passed validation and approval and is about to run; may not change it.
 * - `tool_call_finished`: a call got its final result; may not change it.
 * - `before_create_message`: a message is about to be stored; return a replacement (same role)
 *   to rewrite it, or nothing to keep it.
 * - `after_create_message`: a message was stored.
 * - `filter_messages`: the messages of one model request, built from one snapshot of the
 *   history; return the list to send instead (filtered or rewritten), or nothing to keep it.
 *   The stored history is never changed by this hook.
 */
export interface HookSignatures {
  /** Gets the `tool_call_started` event's payload. */
  tool_call_started: (state: ThreadState, call: EventPayloads["tool_call_started"]) => void | Promise<void>;
  /** Gets the `tool_call_finished` event's payload; the result stands whatever the hook does. */
  tool_call_finished: (state: ThreadState, call: EventPayloads["tool_call_finished"]) => void | Promise<void>;
  /** Returns a replacement of the same role, or nothing to store the message as it is. */
  before_create_message: (state: ThreadState, message: NewTurnMessage) => NewTurnMessage | void | Promise<NewTurnMessage | void>;
  /** Gets the message as stored (with its `id`). */
  after_create_message: (state: ThreadState, message: Message) => void | Promise<void>;
  /** Returns the messages to send to the model instead, or nothing to send them as they are. */
  filter_messages: (state: ThreadState, messages: Message[]) => Message[] | void | Promise<Message[] | void>;
}

/** A hook name: the file name of `agents/hooks/<hook_name>.ts`. */
export type HookName = keyof HookSignatures;

/** Every hook name, in lifecycle order; a file in `agents/hooks/` must be named after one. */
export const HOOK_NAMES: readonly HookName[] = [
  "before_create_message",
  "after_create_message",
  "filter_messages",
  "tool_call_started",
  "tool_call_finished",
];

/** What {@link defineHook} returns: a plain object. */
export interface HookDefinition<N extends HookName = HookName> {
  /** Marks the value as a hook for the registry build. */
  readonly kind: "hook";
  /** Which hook this is (also the file's name). */
  readonly hook: N;
  /** The hook body; a throw becomes a `hook_failed` error naming the hook, which fails the turn it runs in. */
  readonly run: HookSignatures[N];
}

/**
 * Declares a hook. No side effects; the generated registry registers it. The file name must be
 * the hook's name (`agents/hooks/tool_call_started.ts` defines `tool_call_started`).
 * @example
 * export default defineHook("tool_call_started", async (state, call) => {
 *   await state.setValue("last_tool", call.toolName);
 * });
 */
export function defineHook<N extends HookName>(hook: N, run: HookSignatures[N]): HookDefinition<N> {
  return { kind: "hook", hook, run };
}

/**
 * Checks a hook module's default export against its file name.
 * @throws WeftError `invalid_config` naming the file's hook and the rule broken.
 */
export function checkHookDefinition(name: string, def: unknown): asserts def is HookDefinition {
  const fail = configFailure(`hook "${name}"`);
  if (!(HOOK_NAMES as readonly string[]).includes(name)) fail(`a hook file must be named after a hook: ${HOOK_NAMES.join(", ")}`);
  const d = def as Partial<HookDefinition> | null;
  if (typeof d !== "object" || d === null || d.kind !== "hook") fail(`the default export must be the value returned by defineHook("${name}", ...)`);
  if (d!.hook !== name) fail(`the file defines hook "${String(d!.hook)}"; rename the file to ${String(d!.hook)}.ts or define "${name}"`);
  if (typeof d!.run !== "function") fail("the hook must be a function");
}
