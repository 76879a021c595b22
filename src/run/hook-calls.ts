/**
 * Runs the hooks of `agents/hooks/` for one thread, then the agent's own (`defineAgent({ hooks })`).
 * Every hook gets the `ThreadState` of the execution it runs under. A hook that throws becomes a `hook_failed` error naming the hook; the
 * caller lets it end the turn. A stop ends the wait for a hook that stores nothing the history
 * needs at once (see {@link HookBatch}): an admission's, `filter_messages`, `tool_call_started`.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import { HOOK_TIMEOUT_MS, integerSetting } from "../config.js";
import { perEnv } from "../per-env.js";
import type { EventPayloads, Message } from "../protocol.js";
import type { HookDefinition, HookName, HookSignatures } from "./hooks.js";
import { MAX_CONTENT_BYTES, type NewTurnMessage } from "./messages.js";
import { checkJsonShape } from "../json-shape.js";
import { type ContentPart, storedContent } from "../content/parts.js";
import { byteLength, jsonTextBytes } from "../bytes.js";
import { hookMetadata } from "./message-metadata.js";
import type { ValueRedact } from "../kept-text.js";
import { MAX_STEP_BYTES, limitOf } from "../limits.js";
import type { CallExecution } from "../calls/call.js";
import type { RunWorld } from "./world.js";
import { createThreadState } from "./state.js";
import type { CodeExecution, ThreadState } from "../tools/thread-state.js";

/** One hook to run: where it was declared (for errors) and its body. */
interface BoundHook<N extends HookName> {
  /** `hook "name"` for a file of `agents/hooks/`, `agent "id" hook "name"` for an agent's own. */
  label: string;
  run: HookSignatures[N];
}

/** Each world's hooks by name, found once: its registry and agent never change (every call asks). */
const found = new WeakMap<RunWorld, Map<HookName, BoundHook<HookName>[]>>();

/** The hooks of `name` for this thread: the project's (`agents/hooks/`), then the agent's own. */
function hooksOf<N extends HookName>(engine: RunWorld, name: N): BoundHook<N>[] {
  let byName = found.get(engine);
  if (!byName) found.set(engine, (byName = new Map()));
  let hooks = byName.get(name);
  if (!hooks) byName.set(name, (hooks = findHooks(engine, name) as BoundHook<HookName>[]));
  return hooks as BoundHook<N>[];
}

function findHooks<N extends HookName>(engine: RunWorld, name: N): BoundHook<N>[] {
  const out: BoundHook<N>[] = [];
  const hooks = engine.registry.hooks ?? {};
  if (Object.hasOwn(hooks, name)) out.push({ label: `hook "${name}"`, run: (hooks[name] as HookDefinition<N>).run });
  const own = engine.agent.hooks;
  if (own && Object.hasOwn(own, name) && own[name]) out.push({ label: `agent "${engine.meta.agentId}" hook "${name}"`, run: own[name] as HookSignatures[N] });
  return out;
}

/** A hook's deadline as the Worker's env sets it (`WEFT_HOOK_TIMEOUT_MS`), else {@link HOOK_TIMEOUT_MS}. */
const hookTimeoutOf = perEnv((env: Readonly<Record<string, unknown>>): number => integerSetting(env, "WEFT_HOOK_TIMEOUT_MS", 1) ?? HOOK_TIMEOUT_MS);

/**
 * The hooks one piece of work runs in a row (one message's creation, one request's filter, one
 * call's event), and the signal that stops the wait for them: the stop of the execution they run
 * under, or of the admission of a message (src/run/one-turn.ts `admitInbox`).
 */
interface HookBatch {
  readonly signal: AbortSignal | null;
  /** Why nothing waits for a hook of the batch any more (a stop cut it, or it ran past its deadline): the batch's state takes no more writes. */
  cut?: string;
  /** Code its hooks started (`state.runCode`): the hooks' own work, cancelled with them. */
  readonly code: CodeExecution[];
}

/** A batch under `signal` (none: nothing stops it but its hooks' deadline). */
const batchOf = (signal: AbortSignal | null): HookBatch => ({ signal, code: [] });

/** Marks `batch` cut for `why`; the code its hooks started is cancelled, so none of it acts after the cut. */
function cutBatch(batch: HookBatch, why: string): void {
  batch.cut = why;
  for (const run of batch.code.splice(0)) run.cancel();
}

/**
 * Whether `e` is how a hook call under `signal` ended when the signal fired while the hook ran:
 * the signal's reason, as a stopped tool call or model stream ends with it.
 */
export function cutByStop(e: unknown, signal: AbortSignal | null | undefined): boolean {
  return signal?.aborted === true && e === signal.reason;
}

/**
 * Calls one hook, turning a throw into `hook_failed` naming it; one still running past its
 * deadline fails the same way, and one still running when the batch's signal fires ends at once
 * with the signal's reason ({@link cutByStop}). Either way it may go on, but nothing waits for it
 * or takes its answer. A hook that begins once the signal fired is waited for as usual: what a
 * stopped turn's hooks store (its step's last results) closes that turn. Not an async function:
 * a hook's answer takes the microtask turns an `await` of it took before the deadline, so a call's
 * rows still settle within their window (src/calls/settle-window.ts).
 */
function call<N extends HookName, R>(engine: RunWorld, hook: BoundHook<N>, name: N, batch: HookBatch, run: () => R | Promise<R>): Promise<R> {
  const threw = (e: unknown) => new WeftError("hook_failed", `${hook.label} threw: ${errorMessage(e)}`, { hook: name });
  let out: R | Promise<R>;
  try {
    out = run();
  } catch (e) {
    return Promise.reject(threw(e));
  }
  if (!isThenable(out)) return Promise.resolve(out);
  // A thenable of a library (a query builder) is taken as a promise, under the same deadline.
  const answer = out instanceof Promise ? out : Promise.resolve(out);
  const ms = hookTimeoutOf(engine.workerEnv);
  const signal = batch.signal?.aborted === false ? batch.signal : null;
  return new Promise<R>((resolve, reject) => {
    const stopped = (): void => {
      clearTimeout(timer);
      cutBatch(batch, `${hook.label} was cut short by a stop (${errorMessage(signal!.reason)})`);
      reject(signal!.reason);
    };
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stopped);
    };
    const late = (): void => {
      done();
      const why = `${hook.label} did not finish within ${ms} ms (WEFT_HOOK_TIMEOUT_MS)`;
      cutBatch(batch, why);
      reject(new WeftError("hook_failed", why, { hook: name, timeoutMs: ms }));
    };
    const timer = setTimeout(late, ms);
    signal?.addEventListener("abort", stopped, { once: true });
    answer.then(
      (value) => (done(), resolve(value)),
      (e: unknown) => (done(), reject(threw(e))),
    );
  });
}

/** The state's functions that write (or start work): refused once a stop cut the batch, those answering a promise with a rejected one. */
const WRITES: ReadonlyMap<string, "async" | "sync"> = new Map([
  ["injectMessage", "async"],
  ["setValue", "async"],
  ["setEnv", "async"],
  ["invokeTool", "async"],
  ["schedule", "async"],
  ["cancelSchedule", "async"],
  ["queueTool", "sync"],
  ["emit", "sync"],
  ["runCode", "sync"],
]);

/** Writes of the state's member objects, refused alike: `runs.stop`, `execution.stop`, `execution.forceTurn`. */
const MEMBER_WRITES: ReadonlyMap<string, ReadonlyMap<string, "async" | "sync">> = new Map([
  ["runs", new Map([["stop", "async"]])],
  ["execution", new Map<string, "async" | "sync">([["stop", "sync"], ["forceTurn", "sync"]])],
]);

/**
 * The `ThreadState` the hooks of `batch` get. It refuses writes once nothing waits for one of them
 * (a stop cut it, or it ran past its deadline), so a hook that goes on alone leaves nothing in the
 * thread (a write it began before may still land).
 */
function stateOf(engine: RunWorld, execution: CallExecution | null, batch: HookBatch): ThreadState {
  return guarded(createThreadState(engine, undefined, execution), WRITES, batch);
}

/** `target` with its functions named in `writes` refused once `batch` is cut, and its members of {@link MEMBER_WRITES} alike. */
function guarded<T extends object>(target: T, writes: ReadonlyMap<string, "async" | "sync">, batch: HookBatch): T {
  const made = new Map<string, unknown>();
  return new Proxy(target, {
    get(of, key) {
      const value: unknown = Reflect.get(of, key);
      if (typeof key !== "string" || value === null || (typeof value !== "function" && typeof value !== "object")) return value;
      // A member read anew each time (the execution's view): guarded as read.
      const members = writes === WRITES ? MEMBER_WRITES.get(key) : undefined;
      if (members !== undefined) return guarded(value as object, members, batch);
      const kind = writes.get(key);
      if (kind === undefined || typeof value !== "function") return value;
      let wrapped = made.get(key);
      if (wrapped === undefined) {
        wrapped = (...args: unknown[]) => {
          if (batch.cut === undefined) {
            const out = (value as (...a: unknown[]) => unknown).apply(of, args);
            if (key === "runCode") batch.code.push(out as CodeExecution);
            return out;
          }
          const refused = new WeftError("hook_failed", `${batch.cut}: ${key} after that is refused`);
          if (kind === "async") return Promise.reject(refused);
          throw refused;
        };
        made.set(key, wrapped);
      }
      return wrapped;
    },
  });
}

/** Whether the thread has a hook of that name (so callers skip work for absent hooks). */
export function hasHook(engine: RunWorld, name: HookName): boolean {
  return hooksOf(engine, name).length > 0;
}

/**
 * Stores messages through the create-message hooks: every `before_create_message` runs first (a
 * throw writes nothing), then the messages land in one transaction (with `also`), then every
 * `after_create_message` runs. A hook still running when `stop` (an admission's) fires is waited
 * for no more: the call rejects with the signal's reason ({@link cutByStop}).
 * @throws WeftError `hook_failed` naming the hook (which message it refused: {@link refusedMessageIndex}); `invalid_config` when a hook returns a message of another role.
 */
export async function createMessages(
  engine: RunWorld,
  execution: CallExecution | null,
  messages: NewTurnMessage[],
  also?: (stored: readonly Message[]) => void,
  stop?: AbortSignal,
): Promise<Message[]> {
  const before = hooksOf(engine, "before_create_message");
  const after = hooksOf(engine, "after_create_message");
  // Only an admission's hooks are cut by a stop: inside a turn these store the step's messages and
  // results, which the history needs (bounded by their deadline).
  const batch = batchOf(stop ?? null);
  const state = before.length > 0 || after.length > 0 ? stateOf(engine, execution, batch) : null;
  const prepared: NewTurnMessage[] = [];
  for (const [i, message] of messages.entries()) {
    // Each hook sees what the one before it returned.
    let current = message;
    try {
      for (const hook of before) {
        const replaced = await call(engine, hook, "before_create_message", batch, () => hook.run(state!, { ...current }));
        if (replaced === undefined || replaced === null) continue;
        if (typeof replaced !== "object" || replaced.role !== message.role || typeof replaced.content !== "string") {
          throw new WeftError("hook_failed", `${hook.label} returned ${JSON.stringify(replaced)}; return a message of the same role with string content, or nothing`, {
            hook: "before_create_message",
          });
        }
        current = placed(hook, limitOf(engine.workerEnv, "jsonDepth"), message, replaced, (value) => engine.redactor().content(value));
      }
    } catch (e) {
      if (e instanceof Error) refusedAt.set(e, i);
      throw e;
    }
    prepared.push(current);
  }
  const stored = engine.appendMessages(prepared, also);
  for (const hook of after) for (const message of stored) await call(engine, hook, "after_create_message", batch, () => hook.run(state!, message));
  return stored;
}

/** Whether `value` is a promise or another thenable. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** The index (in the list given to {@link createMessages}) of the message a hook refused, by the error it threw. */
const refusedAt = new WeakMap<Error, number>();

/** Which message of a {@link createMessages} call its `before_create_message` hooks refused with `e`; undefined for any other error. */
export function refusedMessageIndex(e: unknown): number | undefined {
  return e instanceof Error ? refusedAt.get(e) : undefined;
}

/**
 * What a `before_create_message` hook returned for `m`, where `m` sits: its call, depth, side and
 * weft's metadata keys are the runtime's, not the hook's; its text, parts and metadata as they will
 * be stored (parts checked as a posted message's, `content` their text, well-formed Unicode, and
 * with the tool calls at most {@link MAX_STEP_BYTES}: what a model step may store in one row), the
 * hook's metadata through `clean` (the thread's `Redactor.content`).
 * @throws WeftError `hook_failed` naming the hook when they cannot be stored (too large, a bad
 * part, content that is not the text of its parts, metadata with no JSON form).
 */
function placed(hook: BoundHook<"before_create_message">, maxDepth: number, m: NewTurnMessage, replaced: NewTurnMessage, clean: ValueRedact): NewTurnMessage {
  const { content, parts, silent } = replaced;
  let checked: { parts?: ContentPart[]; metadata?: Record<string, unknown> };
  try {
    if (silent !== undefined && typeof silent !== "boolean") throw new WeftError("invalid_request", "silent must be true or false", { path: ["silent"] });
    checkJsonShape(content, 1, ["content"]);
    const stored = parts === undefined ? undefined : storedContent(parts, m.role === "user" ? "user" : "system", MAX_CONTENT_BYTES);
    if (stored) checkJsonShape(stored.parts, maxDepth, ["parts"]);
    if (stored && stored.content !== content) throw new WeftError("invalid_request", "content is not the text of its parts: change both", { path: ["content"] });
    // As stored: the text escaped once inside the row's JSON, parts and tool calls as their JSON text.
    const used = jsonTextBytes(content) + (stored ? byteLength(JSON.stringify(stored.parts)) : 0) + (m.toolCalls ? byteLength(JSON.stringify(m.toolCalls)) : 0);
    if (used > MAX_STEP_BYTES) {
      throw new WeftError("payload_too_large", `content: ${used} bytes as stored with its parts and tool calls (JSON), over the ${MAX_STEP_BYTES}-byte limit of a message`, { path: ["content"], limit: MAX_STEP_BYTES });
    }
    checked = { ...(stored?.parts ? { parts: stored.parts } : {}), metadata: hookMetadata(replaced.metadata, m.metadata, used, maxDepth, MAX_STEP_BYTES, clean) };
  } catch (e) {
    throw new WeftError("hook_failed", `${hook.label} returned a message that cannot be stored: ${errorMessage(e)}`, { hook: "before_create_message" });
  }
  const { role, toolCalls, toolCallId, name, isError, depth, side } = m;
  return {
    role,
    content,
    ...(checked.parts ? { parts: checked.parts } : {}),
    ...(silent !== undefined ? { silent } : m.silent !== undefined ? { silent: m.silent } : {}),
    ...(checked.metadata ? { metadata: checked.metadata } : {}),
    ...(toolCalls ? { toolCalls } : {}),
    ...(toolCallId ? { toolCallId } : {}),
    ...(name ? { name } : {}),
    ...(isError !== undefined ? { isError } : {}),
    ...(depth ? { depth } : {}),
    ...(side ? { side } : {}),
  };
}

/**
 * The messages of one model request, through `filter_messages`. `snapshot` is taken once, before
 * the hook runs: a message the hook (or anything else) injects meanwhile enters the next request.
 * @throws WeftError `hook_failed` naming the hook, also when it returns something other than a list of messages.
 */
export async function filterMessages(engine: RunWorld, execution: CallExecution | null, snapshot: readonly Message[]): Promise<Message[]> {
  const filters = hooksOf(engine, "filter_messages");
  let messages = [...snapshot];
  if (filters.length === 0) return messages;
  const batch = batchOf(execution?.signal ?? null);
  const state = stateOf(engine, execution, batch);
  for (const hook of filters) {
    const input = messages;
    const out = await call(engine, hook, "filter_messages", batch, () => hook.run(state, input.map((m) => ({ ...m }))));
    if (out === undefined || out === null) continue;
    if (!Array.isArray(out) || out.some((m) => typeof m !== "object" || m === null || typeof m.role !== "string" || typeof m.content !== "string")) {
      throw new WeftError("hook_failed", `${hook.label} must return a list of messages, or nothing`, { hook: "filter_messages" });
    }
    messages = out;
  }
  return messages;
}

/** Runs a tool-call hook (`tool_call_started` or `tool_call_finished`) under `execution`: the project's, then the agent's. */
export async function toolHook<N extends "tool_call_started" | "tool_call_finished">(
  engine: RunWorld,
  execution: CallExecution | null,
  name: N,
  data: EventPayloads[N],
): Promise<void> {
  const hooks = hooksOf(engine, name);
  if (hooks.length === 0) return;
  // A stop cuts `tool_call_started` (the call then never runs), not `tool_call_finished`: the call
  // ran, and its result goes on to the history (bounded by the hook's deadline).
  const batch = batchOf(name === "tool_call_started" ? (execution?.signal ?? null) : null);
  const state = stateOf(engine, execution, batch);
  for (const hook of hooks) await call(engine, hook, name, batch, () => (hook.run as (s: typeof state, d: EventPayloads[N]) => void | Promise<void>)(state, data));
}
