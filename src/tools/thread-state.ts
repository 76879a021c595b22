/**
 * The `ThreadState` contract handed to every tool (the Standard Agents tools API, "ThreadState"). The thread layer
 * implements it; tools and the dispatch pipeline see only this interface.
 * @module
 */
import type { Message, ToolResult } from "../protocol.js";

/** Options of `getMessages`; cost grows with `limit + offset`, not with the thread's history. */
export interface GetMessagesOptions {
  /** Maximum messages to return; default 100, at most 1000. */
  limit?: number;
  /** Messages to skip from the start of `order`. */
  offset?: number;
  /** `asc` is oldest first; default `asc`. */
  order?: "asc" | "desc";
  /** Include messages injected with `silent: true`; default false. */
  includeSilent?: boolean;
  /**
   * Only messages nested at most this deep: 0 is the thread's own conversation, 1 adds the
   * messages of prompts it called as tools, and so on. Default: every depth.
   */
  maxDepth?: number;
}

/** Result of `getMessages`: a page, the total count under the same filter, and whether more follow. */
export interface MessagesResult {
  messages: Message[];
  total: number;
  hasMore: boolean;
}

/** Input of `injectMessage`. */
export interface InjectMessageInput {
  role: "user" | "assistant" | "system";
  content: string;
  silent?: boolean;
  metadata?: Record<string, unknown>;
}

/** State of the running execution (the Standard Agents tools API's `ExecutionState`); `null` on `state.execution` at rest. */
export interface ExecutionState {
  readonly flowId: string;
  readonly currentSide: "a" | "b";
  readonly stepCount: number;
  readonly sideAStepCount: number;
  readonly sideBStepCount: number;
  readonly stopped: boolean;
  readonly stoppedBy?: "a" | "b";
  readonly messageHistory: Message[];
  forceTurn(side: "a" | "b"): void;
  stop(): void;
  readonly abortSignal: AbortSignal;
  readonly promptPath: string[];
}

/** Options of `runCode` (the Standard Agents tools API's `CodeExecutionOptions`). */
export interface CodeExecutionOptions {
  execute?: { fn: string; args: unknown[] };
  imports?: Record<string, string>;
  globals?: Record<string, unknown>;
  modules?: Record<string, string>;
  language?: "javascript" | "typescript";
  memoryLimitBytes?: number;
  filename?: string;
  report?: boolean;
}

/** A started sandboxed execution. */
export interface CodeExecution {
  readonly result: Promise<{ ok: boolean; value?: unknown; error?: string; logs: string[] }>;
}

/**
 * The per-thread API a tool receives as `state` (the Standard Agents tools API). docs/thread-state.md
 * has an example for every member.
 */
export interface ThreadState {
  /** The thread's id, 64 hex characters. */
  readonly threadId: string;
  /** The agent the thread runs (the file name under `agents/agents/`, or `default`). */
  readonly agentId: string;
  /** The `userId` the thread belongs to, or null. */
  readonly userId: string | null;
  /** When the thread was created, in milliseconds since the epoch. */
  readonly createdAt: number;
  /** The `arguments` object given when the thread was created; `{}` when none was. */
  readonly arguments: Record<string, unknown>;
  /** The running execution (a turn, or a nested prompt or agent); null when the call runs at rest, such as a direct call. */
  execution: ExecutionState | null;
  /** Scratch values shared by the calls of one execution; a fresh object for each call at rest. */
  context: Record<string, unknown>;

  /** One page of the thread's history: `limit` (default 100), `offset`, `order`, `includeSilent`. */
  getMessages(options?: GetMessagesOptions): Promise<MessagesResult>;
  /** Appends a `user`, `assistant` or `system` message and resolves to the stored message. */
  injectMessage(message: InjectMessageInput): Promise<Message>;
  /** An agent's definition by file name. @throws WeftError `agent_not_found` */
  loadAgent<T = unknown>(name: string): Promise<T>;

  /** Queue a call to run after the current tool, durably; `uses` is enforced. */
  queueTool(toolName: string, args: Record<string, unknown>): void;
  /** Run a call now through the dispatch pipeline; `uses` is enforced. */
  invokeTool(toolName: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Send `{ type: event, data }` to subscribers; built-in event names are refused. */
  emit(event: string, data: unknown): void;

  /** A JSON value stored with the thread, or null when the key was never set. */
  getValue<T = unknown>(key: string): Promise<T | null>;
  /** Stores a JSON value with the thread, durably. */
  setValue(key: string, value: unknown): Promise<void>;

  /** Resolves an environment value: thread, agent, prompt, user account, then Worker. @throws WeftError `env_not_found` */
  env(propertyName: string): Promise<string>;
  /** Whether a resolved environment value is `text` (may be shown) or `secret` (redacted). @throws WeftError `env_not_found` */
  envType(propertyName: string): Promise<"text" | "secret">;
  /** Stores an environment value on the thread; a new name is `secret` unless `type` says `text`. */
  setEnv(propertyName: string, value: string, options?: { type?: "text" | "secret" }): Promise<void>;

  /** Runs JavaScript in a sandbox; `result` resolves to `{ ok, value?, error?, logs }`. @throws WeftError `capability_missing` without a sandbox */
  runCode(source: string, options?: CodeExecutionOptions): CodeExecution;
}
