/**
 * The thread's tables (its record, messages, key-value store, env, files, turns and inbox): each
 * write is whole or absent, and `atomically` makes several writes one.
 * @module
 */
import type { Message, ModelStepRecord, TokenUsage, TurnErrorCode } from "../protocol.js";
import type { NewTurnMessage } from "../run/messages.js";
import type { GetMessagesOptions, MessagesResult } from "../tools/thread-state.js";
import type { TurnModelSettings } from "../models/settings.js";

/** What a thread was created with. `asOf` is ISO-8601; times are epoch milliseconds. */
export interface ThreadMeta {
  /** The thread's id (a Durable Object id, 64 hex digits). */
  threadId: string;
  /** The agent it runs. */
  agentId: string;
  /** The owner, or null for a thread made without a user. */
  userId: string | null;
  /** When it was created (epoch ms). */
  createdAt: number;
  /**
   * The `<branchId>` of its calls' effect keys: its id and a random part drawn at creation, so a
   * thread made again on a deleted thread's id repeats none of its keys (nor its child threads).
   * Absent on threads stored before it existed, whose branch is their id.
   */
  branchId?: string;
  /** Its creation arguments (`state.arguments`). */
  arguments: Record<string, unknown>;
  /** Dry run: only reads execute. */
  dryRun: boolean;
  /** The frozen "now" of the thread, ISO-8601 with an offset. */
  asOf?: string;
  /** A direct call's scratch thread: removed by its alarm unless a call in it waits for a person. */
  ephemeral: boolean;
  /**
   * A scratch thread counted against its owner's per-user limit without being listed (kept to
   * answer a repeat of its `Idempotency-Key`): its removal frees the slot. Set before the slot is taken.
   */
  counted?: true;
  /** For the child thread of an agent called as a tool: the calling thread and call. */
  parent?: { threadId: string; callId: string };
}

/** The single thread record and its counters. */
export interface MetaTable {
  /** The record, or undefined before creation. */
  read(): ThreadMeta | undefined;
  /** Writes (replaces) the record. */
  write(meta: ThreadMeta): void;
  /** A counter's value, 0 when never bumped (O(1): counts are kept, never counted). */
  counter(name: string): number;
  /** Adds `by` (may be negative) to a counter. */
  bump(name: string, by: number): void;
  /**
   * A random secret (64 hex digits, 256 bits) kept under `name`, drawn the first time it is asked
   * for and the same ever after: never part of the record, nor of any answer or event.
   */
  secret(name: string): string;
}

/** A message before it is stored. */
export type NewMessage = NewTurnMessage;

/** Appends and pages through messages; ids are increasing integers in append order. */
export interface MessageTable {
  /** Stores a message (its id is the next one) and bumps the message counters. Sizes are checked by the caller (`checkContentSize`). */
  append(input: NewMessage, now?: number): Message;
  /**
   * One page (the Standard Agents tools API's `getMessages`).
   * @throws WeftError `invalid_request` for a page size outside its rule, a negative or non-integer offset, cursor or depth, or a bad order (nothing read).
   */
  list(options?: GetMessagesOptions): MessagesResult;
  /** Up to `limit` messages at exactly `depth` with `floor < id < before`, newest first. */
  newestFirst(depth: number, before: number, floor: number, limit: number): Message[];
  /** Up to `limit` messages at exactly `depth` with `after < id < before`, oldest first. */
  oldestFirst(depth: number, after: number, before: number, limit: number): Message[];
  /** Up to `limit` messages of prompt call `callId`'s nested run with `after < id < before`, in `order`. */
  ofPromptCall(callId: string, after: number, before: number, limit: number, order: "asc" | "desc"): Message[];
  /** Model steps the nested run of prompt call `callId` took (its assistant messages, queued calls aside). */
  promptCallSteps(callId: string): number;
  /** The latest non-empty answer at depth 0 of side a (or no side), among the ids of `within` when given; "" when none. */
  lastAnswer(within?: AnswerRange): string;
  /** Every stored message, silent and nested ones included. */
  count(): number;
}

/** The thread's durable key-value store (`getValue` / `setValue`). */
export interface KvTable {
  /** The stored value (a fresh copy), or null when the key is absent. */
  get<T = unknown>(key: string): T | null;
  /**
   * Stores `value` as JSON, replacing any earlier value whole.
   * @throws WeftError `invalid_request` when the value has no JSON form (undefined, a function, a cycle); the old value stays.
   */
  set(key: string, value: unknown): void;
}

import type { EnvType } from "../protocol.js";

/** Display class of an env value: `text` may be shown, `secret` is redacted (defined with the wire shapes). */
export type { EnvType } from "../protocol.js";

/** Where a secret thread code received came from: `agent`, `prompt:<prompt name>` or `worker`. */
export type ReceivedLevel = "agent" | "worker" | `prompt:${string}`;

/** Thread env values, and which secrets of other levels thread code received. */
export interface EnvTable {
  /** Bumped by every write (and `receive` of a new pair), so a reader can tell nothing changed without a query. */
  readonly version: number;
  /** A value and its type, or undefined. */
  get(name: string): { value: string; type: EnvType } | undefined;
  /** Every value, in no particular order (a redactor's input). */
  all(): Array<[string, { value: string; type: EnvType }]>;
  /**
   * Writes a value; an omitted type keeps the existing one, or `secret` for a new name.
   * @throws WeftError `payload_too_large` for a value too large to store in one row (nothing written).
   */
  set(name: string, value: string, type?: EnvType): void;
  /** Every received secret (name and level), in no particular order. */
  received(): Array<{ name: string; level: ReceivedLevel }>;
  /** Records that thread code received secret `name` of `level`, once per pair, before it is handed out. */
  receive(name: string, level: ReceivedLevel): void;
}

/** A stored file's metadata; `size` is in bytes of its UTF-8 (text) or decoded (base64) form. */
export interface FileInfo {
  /** The file's path in the thread. */
  path: string;
  /** Its MIME type. */
  mimeType: string;
  /** Bytes, as given by the writer. */
  size: number;
  /** When it was written (epoch ms). */
  createdAt: number;
}

/** The thread's files: text, or base64 for binary content; a write replaces a file whole. */
export interface FileTable {
  /** Writes (or replaces) a file whole. */
  write(path: string, data: string, mimeType: string, size: number, now?: number): FileInfo;
  /** A file's metadata, or undefined. */
  info(path: string): FileInfo | undefined;
  /** The stored text (base64 for binary files), or undefined. */
  read(path: string): string | undefined;
  /** A file with its content: text as is; a text attachment (under `/attachments/`, stored base64) decoded when it is UTF-8. */
  content(path: string): (FileInfo & { data: string; encoding: "utf-8" | "base64" }) | undefined;
  /** How far the files are redacted for the thread's secrets: a mark `markRedactedFor` kept (src/secrets/served-file.ts reads it), if any. */
  redactedFor(): string | undefined;
  /** Keeps the mark of how far the files are redacted for the thread's secrets. */
  markRedactedFor(mark: string): void;
  /** Files' metadata by path, at most `limit` (default all), only paths after `after` when given; read as iterated. */
  list(limit?: number, after?: string): Iterable<FileInfo>;
  /** Whether the thread holds any file (one row read, however many it holds). */
  any(): boolean;
  /** Removes a file; false when there was none. */
  delete(path: string): boolean;
}

/** Final and running states of a turn. */
export type TurnStatus = "running" | "waiting" | "completed" | "stopped" | "failed";

/** A stored turn. Times are epoch milliseconds. */
export interface TurnRecord {
  /** The turn's id. */
  turnId: string;
  /** Where it stands. */
  status: TurnStatus;
  /** Model steps taken. */
  steps: number;
  /** When it began. */
  startedAt: number;
  /** When it ended. */
  finishedAt?: number;
  /** Why it failed or stopped, in words. */
  error?: string;
  /** Why a failed turn failed, when weft names the reason with a code. */
  errorCode?: TurnErrorCode;
  /** Each model step's model, finish reason, usage and attempts. */
  modelSteps?: ModelStepRecord[];
  /** Token usage of the whole turn (the sum over its model steps). */
  usage?: TokenUsage;
  /** Model settings the message that began it gave side a's requests (`POST /threads/:id/messages` `modelSettings`). */
  modelSettings?: TurnModelSettings;
}

/** Turns: begun, marked, ended; the newest is the thread's current one. */
export interface TurnTable {
  /** Begins a turn, `running`, newest of all, with the settings its message gave it. @throws when the id has a turn already. */
  begin(turnId: string, now?: number, settings?: TurnModelSettings): void;
  /** Marks a turn waiting for a person, or running again. */
  setStatus(turnId: string, status: "running" | "waiting"): void;
  /** Records how many model steps the turn took. */
  step(turnId: string, steps: number): void;
  /** Ends a turn with a final status (and why, for a failure or a stop). */
  end(turnId: string, status: Exclude<TurnStatus, "running" | "waiting">, error?: string, errorCode?: TurnErrorCode): void;
  /** A turn's status, or undefined for an unknown id. */
  statusOf(turnId: string): TurnStatus | undefined;
  /** The newest turn's status, if any. */
  latestStatus(): TurnStatus | undefined;
  /** The newest turn, if any. */
  latest(): TurnRecord | undefined;
  /** The thread's first turn, if any, with the ids of the messages that are its own. */
  first(): FirstTurn | undefined;
  /** Keeps a stop asked of an unfinished turn, with why, so a restart before it ends resumes it stopped. */
  requestStop(turnId: string, reason: string): void;
  /** Why a stop was asked of the turn (see {@link requestStop}), if one was. */
  stopRequested(turnId: string): string | undefined;
}

/**
 * A thread's first turn: for a child thread, the turn its opening message started, which is the
 * work of the parent's call (a turn the child's owner posts later is not).
 */
export interface FirstTurn {
  /** The turn's id. */
  turnId: string;
  /** Where it stands. */
  status: TurnStatus;
  /** Why it failed or stopped, in words. */
  error?: string;
  /** Its own messages: ids above `after`, and up to `until` when a later turn has begun (null: none has). */
  messages: AnswerRange;
}

/** Message ids of one turn: above `after`, up to and including `until` (null: no bound). */
export interface AnswerRange {
  after: number;
  until: number | null;
}

/** What a running turn keeps about its current model step, so a restart or a wait loses none of it. */
export interface TurnSteps {
  /** Keeps (or with null, clears) the calls of the step being dispatched. */
  setPendingStep(turnId: string, calls: readonly unknown[] | null): void;
  /** The kept calls of the step being dispatched, or null. */
  pendingStep<T>(turnId: string): T[] | null;
  /** Counts a request of model step `step`: 1 the first time, more only when an earlier request of the same step got no stored answer. */
  countModelRequest(turnId: string, step: number): number;
  /** The side forced for the turn's next model step, or null. */
  forcedSide(turnId: string): "a" | "b" | null;
  /** Forces the side of the turn's next model step. */
  setForcedSide(turnId: string, side: "a" | "b"): void;
  /**
   * Appends a model step's record (clearing any forced side), and sets the turn's step count to
   * `steps` when given (as `step` does) and the open step to `pending` when given (as
   * `setPendingStep` does), in the same write; returns the turn's usage so far.
   */
  recordModelStep(turnId: string, record: ModelStepRecord, steps?: number, pending?: readonly unknown[] | null): TokenUsage;
  /** The turn's usage so far: its recorded model steps' usage, summed. */
  stepUsage(turnId: string): TokenUsage;
}

/** A message waiting for the next turn. */
export interface PendingMessage {
  /** Its inbox id (increasing in arrival order). */
  id: number;
  /** Who sends it. */
  role: "user" | "system";
  /** Its text. */
  content: string;
  /** Its metadata, if any. */
  metadata?: Record<string, unknown>;
  /** Why a stop was asked of the turn it is being admitted to begin (see `Inbox.stopAdmission`). */
  stopRequested?: string;
}

/** Messages waiting for the next turn, oldest first. */
export interface Inbox {
  /** Queues a message; returns its id. */
  enqueue(message: Omit<PendingMessage, "id">, now?: number): number;
  /** Every pending message, oldest first, left in the inbox. */
  inbox(): PendingMessage[];
  /**
   * Removes pending messages by id (unknown ids are ignored): how many were there, and the stop
   * kept with the newest of them that has one (see `stopAdmission`).
   */
  dropInbox(ids: readonly number[]): { dropped: number; stopAsked?: string };
  /** Keeps a stop asked of the turn that pending messages `ids`, being admitted, begin: a restart before it begins admits them (and no later ones) into a turn that begins stopped. */
  stopAdmission(ids: readonly number[], reason: string): void;
  /** How many messages wait. */
  inboxSize(): number;
}

/** All of a thread's tables behind one object. */
export interface ThreadTables {
  /** The thread record and counters. */
  readonly meta: MetaTable;
  /** The history. */
  readonly messages: MessageTable;
  /** `getValue` / `setValue`. */
  readonly kv: KvTable;
  /** Thread env values. */
  readonly env: EnvTable;
  /** The thread's files. */
  readonly files: FileTable;
  /** Turns, their step state and the inbox. */
  readonly turns: TurnTable & TurnSteps & Inbox;
  /**
   * Runs `fn` as one transaction: all of its writes land, or none (a throw rolls every table back
   * and is rethrown). `fn` must be synchronous.
   */
  atomically<T>(fn: () => T): T;
}
