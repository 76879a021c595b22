/**
 * Messages, tool results, call records and env value types: the stored shapes a thread (and a
 * user's account) keeps and the events carry.
 * Field names follow the Standard Agents tools API (`ToolResult`, `ToolAttachment`, `Message`).
 * Import them from `src/protocol.ts`, which exports these and the events together.
 * @module
 */
import type { ContentPart } from "./content/parts.js";

/** A file returned by a tool (the Standard Agents tools API's `ToolAttachment`); `data` is base64. */
export interface ToolAttachment {
  /** File name, such as `generated.png`; the stored file is named after it. */
  name: string;
  /** MIME type of the data, such as `image/png`. */
  mimeType: string;
  /** The file's bytes, base64-encoded. */
  data: string;
  /** Image width in pixels, when it is an image. */
  width?: number;
  /** Image height in pixels, when it is an image. */
  height?: number;
}

/** A stored attachment, referenced instead of inlined. */
export interface AttachmentRef {
  /** File name the tool gave it. */
  name: string;
  /** MIME type the tool gave it. */
  mimeType: string;
  /** Path in the thread's file system, fetched over `GET /threads/:id/files/:path`. */
  path: string;
  /** Size in bytes of the decoded data. */
  size: number;
}

/** What a tool returns (the Standard Agents tools API's `ToolResult`). */
export interface ToolResult {
  /** Whether the tool did what was asked; an `error` result is what the model sees as a failed call. */
  status: "success" | "error";
  /** A success's text for the model (JSON as a string, for structured values); capped for the model, kept whole in the thread's files. */
  result?: string;
  /** An error's message for the model; never empty in a stored result. */
  error?: string;
  /** Stack trace of a thrown error, kept in the call record (capped at 16 KiB), never shown to the model. */
  stack?: string;
  /** Files the tool returns: inline (`data`) from `execute`, stored and referenced (`path`) once recorded. */
  attachments?: Array<ToolAttachment | AttachmentRef>;
}

/** One tool call requested by a model step, with its raw argument text kept. */
export interface ToolCallRequest {
  id: string;
  name: string;
  /** Arguments as the model sent them: JSON text, possibly malformed. */
  arguments: string;
  /**
   * The model's stream ended before these arguments were complete: the call never runs.
   * `length`: the model's output-token limit ended it.
   */
  cutOff?: boolean | "length";
  /** Bytes of arguments too large to store (`arguments` is then empty): the call never runs. */
  oversized?: number;
  /** Its `tool_call_started` event went out while the arguments streamed (`progressArgument`). */
  announced?: boolean;
  /**
   * The provider ran this call itself (a tool with `executionMode: "provider"`, such as web
   * search): weft never dispatches it, and replays it to the provider with its result.
   */
  providerExecuted?: boolean;
  /**
   * For a provider-executed call: what the provider's run returned, as the provider sent it, and
   * which provider ran it (`openai`, `anthropic`): only that provider gets it back as its own call.
   */
  providerResult?: { value: unknown; isError?: boolean; provider: string };
  /** Provider metadata of the call (for example OpenAI's item id), sent back with it in later requests. */
  providerMetadata?: Record<string, Record<string, unknown>>;
}

/** Message roles stored in a thread. */
export type MessageRole = "user" | "assistant" | "system" | "tool";

/** A stored message. `id` is the thread-local sequence number (1, 2, ...). */
export interface Message {
  /** Thread-local sequence number: 1, 2, ... in the order messages were stored. */
  id: number;
  /** Who wrote it: `user`, `assistant` (the model), `system`, or `tool` (a call's result). */
  role: MessageRole;
  /** The text; a tool message's is the result (or error) the model sees; a message posted as parts, its text parts. */
  content: string;
  /** A user message posted as parts (text, images, files), all of them in order (src/content/parts.ts). */
  parts?: ContentPart[];
  /** Assistant messages: the calls the model asked for. */
  toolCalls?: ToolCallRequest[];
  /** Tool messages: the call this result answers. */
  toolCallId?: string;
  /** Tool messages: the tool's name. */
  name?: string;
  /**
   * Tool messages: the call ended without a success (it failed, was denied or aborted, or has no
   * result). Providers that mark such results get the mark (Anthropic's `is_error`).
   */
  isError?: true;
  /** Injected with `silent: true`: stored and sent to the model, but left out of message lists unless `includeSilent` asks. */
  silent: boolean;
  /** Free-form data given with `injectMessage`; never sent to the model. */
  metadata?: Record<string, unknown>;
  /** Nesting depth when above 0: written inside a prompt called as a tool (1 for a call from the turn). */
  depth?: number;
  /** The side that wrote it, in a two-sided agent's conversation. */
  side?: "a" | "b";
  /** Creation time, milliseconds since the Unix epoch. */
  createdAt: number;
}

/** Where a call came from. Every source goes through the same dispatch pipeline. */
export type CallSource = "model" | "direct" | "queue" | "invoke";

/**
 * States of a call record. Final: `succeeded`, `failed`, `denied`, `aborted`. Waiting for a
 * person: `awaiting_approval`, `parked`. In flight: `queued`, `started` (the journal entry).
 */
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Every call status, in lifecycle order. */
export const CALL_STATUSES = ["queued", "started", "awaiting_approval", "parked", "succeeded", "failed", "denied", "aborted"] as const;

/** Statuses after which a call never changes again (docs/guarantees.md: one result per call id). */
export const FINAL_CALL_STATUSES: readonly CallStatus[] = ["succeeded", "failed", "denied", "aborted"];

/** Statuses of a call that waits for a person: an approval to give, or a parked outcome to settle. */
export const PERSON_WAIT_STATUSES = ["awaiting_approval", "parked"] as const satisfies readonly CallStatus[];

/** A status of {@link PERSON_WAIT_STATUSES}. */
export type PersonWaitStatus = (typeof PERSON_WAIT_STATUSES)[number];

/** True for a status of a call that waits for a person ({@link PERSON_WAIT_STATUSES}). */
export function waitsForPersonStatus(status: string): boolean {
  return (PERSON_WAIT_STATUSES as readonly string[]).includes(status);
}

/** True for a status after which a call never changes again. */
export function isFinalStatus(status: CallStatus): boolean {
  return FINAL_CALL_STATUSES.includes(status);
}

/** A call as `GET /threads/:id/calls` lists it. */
export interface CallRecord {
  /** The call id: the model's, or one weft made (`tool_<name>_<time><random>` for a direct call, see `orderedId`); unique in the thread. */
  callId: string;
  /** The tool the call named. */
  toolName: string;
  /** Who asked for it: the model, a direct call, `queueTool` or `invokeTool`. */
  source: CallSource;
  /** Where it stands ({@link CallStatus}). */
  status: CallStatus;
  /** Raw argument text as received. */
  argsText: string;
  /** Parsed and validated input, once it validated. */
  input?: unknown;
  /** The final result, once there is one; the full text when the model saw it capped is at {@link CallRecord.fullResultPath}. */
  result?: ToolResult;
  /** Attempts at `execute`: more than 1 when a read or idempotent call was retried on a transient failure. */
  attempts: number;
  /** `<branchId>:<callId>`, stable across retries and restarts: what `execute` and `reconcile.lookup` see to deduplicate. */
  effectKey: string;
  /** The turn whose model step asked for it; absent for a call outside any turn (a direct call). */
  turnId?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** When the journal row was last marked started, epoch milliseconds. */
  startedAt?: number;
  /** When it got its final result, epoch milliseconds. */
  finishedAt?: number;
  /** Milliseconds the call took to reach its result, in this run of the thread. */
  durationMs?: number;
  /** A dry-run thread answered the call without running it. */
  stubbed?: boolean;
  /** Who approved it, for `needsApproval` tools. */
  approvedBy?: string;
  /** The verified user who denied or settled it (a person's verdict), when one did. */
  decidedBy?: string;
  /** Why it is parked, or was before it was settled. */
  parkReason?: string;
  /** Hash of the canonical input under the thread's own key (opaque; a plain SHA-256 on calls stored before it was keyed): the approval is bound to it. */
  argsHash?: string;
  /** Code of a refusal (`unknown_tool`, `invalid_tool_input`, `invalid_tool_output`). */
  errorCode?: string;
  /** Structured details of that refusal; `issues` lists `{ path, message, keyword }` with `path` an array of keys and indexes. */
  errorDetails?: Record<string, unknown>;
  /** Path of the full result in the thread's files, when the stored result was capped. */
  fullResultPath?: string;
  /** `unknown`: a write failed after it began; its effect may or may not have happened. */
  outcome?: "unknown";
  /** Runs of this call that a restart of the thread cut short. */
  restarts?: number;
}

/** Display class of an env value at any level: `text` may be shown, `secret` is redacted. */
export type EnvType = "text" | "secret";
