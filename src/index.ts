/**
 * weft's public API: the `define*` functions agent authors import, and the types they see.
 * `@standardagents/spec` is an alias of this module, so seed-003's examples run unchanged.
 * @module
 */
export { defineTool, TOOL_NAME_PATTERN } from "./tools/define.js";
export { defineAgent } from "./run/agent.js";
export type { AgentDefinition, DefineAgentOptions, EnvDefault, Registry } from "./run/agent.js";
export type {
  AnyToolDefinition,
  DefineToolOptions,
  Effect,
  InferArgs,
  JsonSchemaObject,
  LookupResult,
  ToolArgs,
  ToolCallContext,
  ToolDefinition,
  ToolTenvs,
  VariableDefinition,
} from "./tools/types.js";
export type {
  CodeExecution,
  CodeExecutionOptions,
  ExecutionState,
  GetMessagesOptions,
  InjectMessageInput,
  MessagesResult,
  ThreadState,
} from "./tools/thread-state.js";
export type { Message, ToolAttachment, AttachmentRef, ToolResult, EventFrame } from "./protocol.js";
export type { ScriptStep } from "./models/model.js";
export { WeftError } from "./errors.js";
export { TransientError, throwIfTransient, isTransient, isTransientStatus } from "./tools/retry.js";
export type { ErrorCode } from "./errors.js";
