/**
 * Runs one tool of a registry directly, with no thread: an in-memory ThreadState and the argument
 * parsing the dispatch pipeline applies. For unit tests of a tool's own logic.
 * @module
 */
import type { InjectMessageInput, Message, Registry, ThreadState, ToolCallContext, ToolResult } from "../src/index.js";
import { compileSchema } from "../src/tools/schema.js";

/** An in-memory ThreadState with the parts these tools use; the rest throws. */
export function fakeState(env: Record<string, string> = {}) {
  const kv = new Map<string, unknown>();
  const queued: Array<[string, Record<string, unknown>]> = [];
  const injected: InjectMessageInput[] = [];
  const partial: Partial<ThreadState> = {
    threadId: "thread_1",
    getValue: async <T>(key: string) => (kv.has(key) ? (structuredClone(kv.get(key)) as T) : null),
    setValue: async (key: string, value: unknown) => void kv.set(key, structuredClone(value)),
    queueTool: (name: string, args: Record<string, unknown>) => void queued.push([name, args]),
    injectMessage: async (message: InjectMessageInput) => {
      injected.push(message);
      return { id: injected.length, role: message.role, content: message.content } as Message;
    },
    env: async (name: string) => {
      const value = env[name];
      if (value === undefined) throw new Error(`env ${name} is not set`);
      return value;
    },
  };
  const state = new Proxy(partial, {
    get: (target, key) => (key in target ? target[key as keyof ThreadState] : () => { throw new Error(`fake state has no ${String(key)}`); }),
  }) as ThreadState;
  return { state, kv, queued, injected };
}

/** Parses `args` with the tool's schema and runs `execute`, as the dispatch pipeline would. */
export async function runTool(
  registry: Registry,
  name: string,
  state: ThreadState,
  args: Record<string, unknown> = {},
  call: Partial<ToolCallContext> = {},
): Promise<ToolResult> {
  const def = registry.tools[name];
  if (!def) throw new Error(`no tool ${name}`);
  let input: unknown = undefined;
  if (def.args !== undefined) {
    const parsed = compileSchema(name, "args", def.args).validate(args);
    if (!parsed.ok) throw new Error(parsed.issues.map((i) => i.message).join("; "));
    input = parsed.data;
  }
  const context: ToolCallContext = { callId: "call_1", effectKey: "main:call_1", toolName: name, attempt: 1, signal: new AbortController().signal, ...call };
  return (def.execute as (s: ThreadState, a: unknown, c: ToolCallContext) => Promise<ToolResult>)(state, input, context);
}

