/**
 * weft's public API: the `define*` functions agent authors import, and the types they see.
 * `@standardagents/spec` is an alias of this module, so the Standard Agents tools API's examples run unchanged.
 * @module
 */
/** Declares a tool (agents/tools/<name>.ts); `TOOL_NAME_PATTERN` is the rule every tool name must match. */
export { defineTool, TOOL_NAME_PATTERN } from "./tools/define.js";
/** Declares an agent (agents/agents/<name>.ts): one or two sides, stop conditions, env defaults. */
export { defineAgent } from "./run/agent.js";
/** Declares a remote MCP server (agents/mcp/<name>.ts) whose tools agents list as `<server>.<tool>`. */
export { defineMcpServer } from "./remote/define.js";
/** Remote MCP server definitions (src/remote/define.ts). */
export type { DefineMcpServerOptions, McpServerDefinition, McpBearerAuth, McpOAuthAuth, RemoteEffect } from "./remote/define.js";
/** Agent definitions and the generated registry's shape (src/run/agent.ts). */
export type { AgentDefinition, AgentSide, DefineAgentOptions, EnvDefault, Registry } from "./run/agent.js";
/** How an agent bounds the history of its model requests. */
export type { HistoryOptions } from "./run/compaction.js";
/** Declares a prompt (agents/prompts/<name>.ts), callable as a tool through its `toolDescription`. */
export { definePrompt } from "./run/prompt.js";
/** Prompt definitions (src/run/prompt.ts). */
export type { DefinePromptOptions, PromptDefinition, SystemPrompt } from "./run/prompt.js";
/** Declares a lifecycle hook (agents/hooks/<hook_name>.ts); `HOOK_NAMES` lists the hooks. */
export { defineHook, HOOK_NAMES } from "./run/hooks.js";
/** Schedules: `defineSchedule` for `agents/schedules/<name>.ts` (docs/schedules.md). */
export { defineSchedule } from "./schedules/define.js";
/** A schedule as written, as a file exports it, and what each occurrence does. */
export type { ScheduleDefinition, ScheduleOptions, ScheduleTarget } from "./schedules/define.js";
/** A schedule as the API gives it, and a page of them as `state.listSchedules()` and `GET /threads/:id/schedules` give it. */
export type { ScheduleInfo, SchedulePage, SchedulePageOptions } from "./schedules/info.js";
/** Hook definitions and what each hook receives (src/run/hooks.ts). */
export type { HookDefinition, HookName, HookSignatures } from "./run/hooks.js";
/** Tool authoring types: options, schemas, effects, the call context (src/tools/types.ts). */
export type {
  AnyToolDefinition,
  ClientToolOptions,
  DefineToolOptions,
  Effect,
  InferArgs,
  JsonSchemaObject,
  LookupResult,
  RunToolOptions,
  Tool,
  ToolArgs,
  ToolArgsNode,
  ToolArgsRawShape,
  ToolCallContext,
  ToolDefinition,
  ToolTenvs,
  VariableDefinition,
} from "./tools/types.js";
/** The `ThreadState` contract tools receive (the Standard Agents tools API; src/tools/thread-state.ts). */
export type {
  CodeExecution,
  CodeExecutionOptions,
  CodeExecutionResult,
  CodeHostFunction,
  CodeImport,
  ExecutionState,
  GetMessagesOptions,
  InjectMessageInput,
  MessagesResult,
  ThreadState,
} from "./tools/thread-state.js";
/** Messages, tool results and WebSocket frames (src/protocol.ts, src/events.ts). */
export type { Message, ToolAttachment, AttachmentRef, ToolResult, EventFrame } from "./protocol.js";
/** A user message's parts: text, images and files (src/content/parts.ts). */
export type { ContentPart, MessageContent } from "./content/parts.js";
/** A step the scripted model plays (src/models/model.ts). */
export type { ScriptStep } from "./models/model.js";
/** Settings of an agent side's or a prompt's model requests (`modelSettings`): sampling, output bound, tool choice, reasoning effort, prompt caching, provider options. */
export type { ModelSettings, ReasoningEffort, ToolChoiceSetting, TurnModelSettings, TurnSettingName } from "./models/settings.js";
/** weft's one error class; status and retryability come from its code. */
export { WeftError } from "./errors.js";
/** Transient failures that read and idempotent calls retry on (the Agent SDK tools reference). */
export { TransientError, throwIfTransient, isTransient, isTransientStatus } from "./calls/retry.js";
/** The closed union of error codes (src/errors.ts). */
export type { ErrorCode } from "./errors.js";
