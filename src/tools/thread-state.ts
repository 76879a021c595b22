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

/** The per-thread API a tool receives as `state` (the Standard Agents tools API). */
export interface ThreadState {
  readonly threadId: string;
  readonly agentId: string;
  readonly userId: string | null;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly arguments: Record<string, unknown>;
  execution: ExecutionState | null;
  context: Record<string, unknown>;

  getMessages(options?: GetMessagesOptions): Promise<MessagesResult>;
  injectMessage(message: InjectMessageInput): Promise<Message>;
  loadAgent<T = unknown>(name: string): Promise<T>;

  /** Queue a call to run after the current tool, durably; `uses` is enforced. */
  queueTool(toolName: string, args: Record<string, unknown>): void;
  /** Run a call now through the dispatch pipeline; `uses` is enforced. */
  invokeTool(toolName: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Send `{ type: event, data }` to subscribers; built-in event names are refused. */
  emit(event: string, data: unknown): void;

  getValue<T = unknown>(key: string): Promise<T | null>;
  setValue(key: string, value: unknown): Promise<void>;

  env(propertyName: string): Promise<string>;
  envType(propertyName: string): Promise<"text" | "secret">;
  setEnv(propertyName: string, value: string, options?: { type?: "text" | "secret" }): Promise<void>;

  runCode(source: string, options?: CodeExecutionOptions): CodeExecution;
}
