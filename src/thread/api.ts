/**
 * The one typed RPC surface through which the Worker reaches a thread. The Thread Durable Object
 * class `implements` it, so the compiler keeps the two in step (no hand-kept copy).
 * @module
 */
import type { ThreadUsage } from "../usage/reports.js";
import type { ScheduleInfo, SchedulePage, SchedulePageOptions, ScheduleRun } from "../schedules/info.js";
import type { DirectCallInput, DirectCallOutcome, ModelInForce } from "../run/rpc-shapes.js";
import type { HistoryMessage } from "../run/seed-history.js";
import type { PostMessageInput } from "../run/posted.js";
import type { ModelTool } from "../models/model.js";
import type { CallRecord, Message } from "../protocol.js";
import type { UnavailableTool } from "../tools/catalog.js";
import type { Settlement } from "../calls/decide.js";
import type { CallOutcome, CallsPageOptions } from "../calls/call.js";
import type { GetMessagesOptions, MessagesResult } from "../tools/thread-state.js";
import type { Caller, IdempotencyClaim, RpcFailure, RpcResult } from "../rpc.js";
// The store port's types, not the SQLite tables': weft/client's declarations reach this file.
import type { FileInfo, ThreadMeta, TurnRecord } from "../ports/store.js";

/** Options of `POST /threads`. */
export interface CreateThreadInput {
  /** The agent to run (a file name under `agents/agents/`); default: the only agent, else `default` (every tool, no system prompt). */
  agent?: string;
  /** The thread's creation arguments (`state.arguments`), read-only for its tools and prompts. */
  arguments?: Record<string, unknown>;
  /** Steps for the scripted model to play, in order, one per model request. */
  script?: unknown;
  /** Thread-level env values: a plain string is a `secret`; `{ value, type: "text" }` may be shown. */
  env?: Record<string, { value: string; type?: "text" | "secret" } | string>;
  /** A dry-run thread runs reads and answers writes and idempotent calls with `dryRunResult` (or "Operation acknowledged.") without running them. */
  dryRun?: boolean;
  /** ISO-8601 instant with an offset: the thread's frozen "now", which each tool's `timeArgs` may not pass. */
  asOf?: string;
  /**
   * An earlier conversation the thread starts from, oldest first, stored before its first turn
   * (see `checkHistory`): what an eval replays a stored thread's later message against.
   */
  history?: HistoryMessage[];
  /** A direct call's scratch thread: removed by an alarm unless a call in it waits for a person. */
  ephemeral?: boolean;
  /** Internal (child threads): the first message, queued in the transaction that creates the thread. */
  opening?: string;
  /** Internal (child threads): the thread and call that created this one. */
  parent?: { threadId: string; callId: string };
}

/** What `GET /threads/:id` returns. */
export interface ThreadInfo extends ThreadMeta {
  /**
   * `running`: a turn runs; `waiting`: a turn or a call of the thread (a direct call too) waits for
   * a person (an approval or a parked call); `idle`: nothing is unfinished.
   */
  status: "idle" | "running" | "waiting";
  /** Messages stored in the thread, silent and nested ones included. */
  messageCount: number;
  /** `seq` of the newest event frame (0 before any): a WebSocket from `?since=<lastSeq>` gets only what comes next. */
  lastSeq: number;
  /** The newest turn's record (status, steps, model steps and token usage); absent before the first turn. */
  lastTurn?: TurnRecord;
  /** What the model is offered: each usable tool's name, description, input JSON Schema, and for a tool the provider runs itself, which one. */
  tools: ModelTool[];
  /** Tools the agent defines that cannot be offered, and remote MCP servers (or their tools) that offer fewer, with why; never left out silently. */
  unavailableTools: UnavailableTool[];
  /**
   * The model each side's next turn talks to, side a first (one entry for a one-sided agent):
   * `spec` as `provider:model-id`, or `scripted` when none is configured (the scripted model plays
   * the thread's script); `where` names what chose it (a definition file, or the env level of
   * `WEFT_MODEL`). Fallback models are not listed. Empty when the agent is missing (`agentMissing`).
   */
  models: ModelInForce[];
  /**
   * Present when this deployment cannot run the thread's agent (a deploy removed or renamed its
   * file): `code` is `agent_not_found` (or `invalid_config`), `message` says what still works
   * (reading, subscribing, deleting). A new message or direct call is refused with that code.
   */
  agentMissing?: { code: "agent_not_found" | "invalid_config"; message: string };
}

/** The model a side of a thread talks to (defined with run/'s RPC shapes). */
export type { ModelInForce } from "../run/rpc-shapes.js";

/** A scratch call's outcome; `kept` when its thread stays (the call waits for a person). */
export type ScratchCallOutcome = DirectCallOutcome & { kept: boolean };

/** A file's content as RPC carries it: text as is, binary base64-encoded. */
export interface FileContent extends FileInfo {
  data: string;
  encoding: "utf-8" | "base64";
}

/**
 * The Thread's RPC methods. Every method but `waitIdle` takes the caller first: the thread
 * answers `thread_not_found` to anyone but its owner (and, for reads, an admin), so a thread's
 * existence never leaks. Results are redacted of every secret before they leave the thread.
 * Methods that act take an optional `IdempotencyClaim` last: a request repeated with its key gets
 * the first answer and acts once.
 */
export interface ThreadApi {
  create(caller: Caller, input: CreateThreadInput, threadId: string, idem?: IdempotencyClaim): Promise<RpcResult<ThreadMeta>>;
  info(caller: Caller): Promise<RpcResult<ThreadInfo>>;
  usage(caller: Caller): Promise<RpcResult<ThreadUsage>>; // GET /threads/:id/usage (src/usage/thread-ledger.ts)
  getMessages(caller: Caller, options: GetMessagesOptions): Promise<RpcResult<MessagesResult>>;
  postMessage(caller: Caller, input: PostMessageInput, idem?: IdempotencyClaim): Promise<RpcResult<{ queued: boolean; message?: Message }>>;
  listCalls(caller: Caller, options?: CallsPageOptions & { limit?: number }): Promise<RpcResult<{ calls: CallRecord[]; hasMore: boolean }>>;
  getCall(caller: Caller, callId: string): Promise<RpcResult<CallRecord>>;
  approve(caller: Caller, callId: string, argsHash?: string, idem?: IdempotencyClaim): Promise<RpcResult<CallOutcome>>;
  /** `argsHash`, when given, must name the arguments the call holds (`approval_mismatch`), as for `approve`. */
  deny(caller: Caller, callId: string, reason?: string, idem?: IdempotencyClaim, argsHash?: string): Promise<RpcResult<CallOutcome>>;
  settle(caller: Caller, callId: string, settlement: Settlement, idem?: IdempotencyClaim): Promise<RpcResult<CallOutcome>>;
  listFiles(caller: Caller, page?: { limit?: number; cursor?: string }): Promise<RpcResult<{ files: FileInfo[]; nextCursor: string | null }>>; // by path; src/secrets/served-file.ts
  getFile(caller: Caller, path: string): Promise<RpcResult<FileContent>>;
  deleteFile(caller: Caller, path: string): Promise<RpcResult<{ deleted: boolean }>>;
  /** Makes a schedule on the thread for the caller (src/schedules/); write access. */
  createSchedule(caller: Caller, input: unknown, idem?: IdempotencyClaim): Promise<RpcResult<ScheduleInfo>>;
  /** A page of the thread's schedules (src/schedules/schedules.ts `page`); read access. */
  listSchedules(caller: Caller, page?: SchedulePageOptions): Promise<RpcResult<SchedulePage>>;
  /** Cancels a schedule of the thread; write access. */
  cancelSchedule(caller: Caller, scheduleId: string): Promise<RpcResult<ScheduleInfo>>;
  /** Runs an occurrence of a schedule of the thread now (src/schedules/run-now.ts); write access. */
  runSchedule(caller: Caller, scheduleId: string, idem?: IdempotencyClaim): Promise<RpcResult<ScheduleRun>>;
  callTool(caller: Caller, input: DirectCallInput, idem?: IdempotencyClaim): Promise<RpcResult<DirectCallOutcome>>;
  /**
   * {@link callTool} with its outcome as a string (`outcomeText` in src/run/direct.ts: the JSON text the
   * Worker answers with, passed on as it is); a failure as in every `RpcResult`.
   */
  callToolJson(caller: Caller, input: DirectCallInput, idem?: IdempotencyClaim): Promise<string | RpcFailure>;
  /**
   * Called by the owner's UserAccount when its env values changed (the thread keeps them between
   * requests); `live` is false when no thread exists here any more.
   */
  accountEnvChanged(): Promise<{ live: boolean }>;
  /**
   * A direct call without a session, in one round trip: creates the scratch thread `threadId`
   * (`input` gives its arguments), runs the call, and removes the thread, unless the call waits
   * for a person (the thread is kept as an ordinary session: `kept`, listed in the caller's
   * account) or `idem` is given (the thread keeps the key until its alarm removes it, counted
   * unlisted against the per-user limit from before the call runs; a repeat under the key finds it
   * and its answer).
   */
  scratchCall(caller: Caller, input: CreateThreadInput, threadId: string, call: DirectCallInput, idem?: IdempotencyClaim): Promise<RpcResult<ScratchCallOutcome>>;
  stop(caller: Caller, firstTurn?: boolean): Promise<RpcResult<{ stopped: boolean }>>;
  /** Resolves once no turn runs; for tests and graceful shutdown (reveals nothing). */
  waitIdle(): Promise<RpcResult<null>>;
  /**
   * Removes every row of the thread (also a scratch thread's, after its call). Requests that come
   * meanwhile find no thread; calls already running get `WEFT_DELETE_GRACE_MS` to answer, and
   * any still running then answer `thread_not_found` with `details.deleted` (core.ts `removeAll`).
   */
  destroy(caller: Caller): Promise<RpcResult<null>>;
  /** WebSocket upgrades; the Worker puts the verified caller in the `x-weft-caller` header. */
  fetch(request: Request): Promise<Response>;
}

/** Internal header carrying the verified caller from the Worker to the thread (never the client's). */
export const CALLER_HEADER = "x-weft-caller";
