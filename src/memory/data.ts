/**
 * The plain data behind the memory store's tables, shared by the files that implement them.
 * @module
 */
import type { Message } from "../protocol.js";
import type { EnvType, FileInfo, PendingMessage, TurnRecord } from "../ports/store.js";

/** A turn as kept in memory: the record and what a running turn keeps about its step. */
export interface MemoryTurn extends TurnRecord {
  /** JSON text of the pending step's calls, or null. */
  pendingStep: string | null;
  /** The last counted model request. */
  modelRequest: { step: number; count: number } | null;
  /** The side forced for the next step. */
  forcedSide: "a" | "b" | null;
  /** The newest message id when it began. */
  messagesBefore: number;
  /** Why a stop was asked of it while unfinished. */
  stopRequested?: string;
}

/** Every table's rows, plain data (so `atomically` can copy and restore it whole). */
export interface MemoryData {
  /** The thread record's JSON text. */
  meta: string | null;
  /** Counters by name. */
  counters: Record<string, number>;
  /** Secrets by name (`MetaTable.secret`). */
  secrets: Record<string, string>;
  /** Messages in id order, with the prompt call each belongs to. */
  messages: Array<{ message: Message; promptCall: string | null }>;
  /** Values' JSON text by key. */
  kv: Record<string, string>;
  /** Env rows by name. */
  env: Record<string, { value: string; type: EnvType }>;
  /** `name\0level` of every received secret. */
  received: string[];
  /** Files by path. */
  files: Record<string, { info: FileInfo; data: string }>;
  /** The fingerprint of the secrets the files were last redacted for. */
  filesRedactedFor?: string;
  /** Turns, oldest first. */
  turns: MemoryTurn[];
  /** The inbox, oldest first. */
  inbox: PendingMessage[];
}
