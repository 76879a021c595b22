/**
 * A call as the runner takes it (a request) and as it stands afterwards (an outcome), and the run
 * it belongs to.
 * @module
 */
import { hmacSha256Hex, sha256Hex } from "../bytes.js";
import type { WeftError } from "../errors.js";
import type { CallRecord, CallSource, CallStatus, ToolResult } from "../protocol.js";
import type { IdempotencyClaim } from "../rpc.js";
import { pageWithin } from "../limits.js";
import type { LedgerQueries, LedgerRecord } from "../ports/ledger.js";
import type { Redactor } from "../secrets/redact.js";
import type { CompiledTool } from "../tools/catalog.js";
import type { ExecutionState } from "../tools/thread-state.js";
import type { EffectTerms, StartedAs } from "../tools/started-as.js";
import type { Effect } from "../tools/types.js";

/**
 * The run a call belongs to, as the pipeline needs it; `src/run/execution.ts` builds the full value.
 * A call made outside any run (direct, queued at rest, approved by a person) has none.
 */
export interface CallExecution {
  readonly flowId: string;
  /** 0 for a turn; one more for each prompt or agent run it is nested in (messages it writes carry it). */
  readonly depth: number;
  /** Fires when the run is stopped. */
  readonly signal: AbortSignal;
  /** Handed to tools as `state.execution`. */
  readonly state: ExecutionState;
  /** Handed to tools as `state.context`: shared by every call of the run. */
  readonly context: Record<string, unknown>;
}

/** One call to run. `args` is raw model text or an already-structured value; `source` says who asked. */
export interface CallRequest {
  callId: string;
  toolName: string;
  args: { text: string } | { value: unknown };
  source: CallSource;
  turnId?: string;
  parentCallId?: string;
  /** The model's stream ended inside this call's arguments (`length`: its output-token limit did): it is refused, never run. */
  cutOff?: boolean | "length";
  /** Bytes of arguments too large to store (`args` is then empty): it is refused, never run. */
  oversized?: number;
  /** Its `tool_call_started` went out while its arguments streamed; it is not sent again. */
  announced?: boolean;
  /**
   * The call id was minted for this request (never sent by a client or a model), so no row can
   * hold it yet: the pipeline does not look for one.
   */
  fresh?: boolean;
  /**
   * The caller answers a bad request itself, with nothing stored (a direct call: HTTP 404 or 400):
   * an unknown tool, or an input that fails the tool's schema, throws its `WeftError` instead of
   * ending the call with an error result.
   */
  refuseUnstored?: boolean;
  /**
   * Asked once the effect predicate judged the call (stage 5), before anything is stored or run;
   * a throw refuses the call with nothing stored. A direct call while a turn runs takes reads
   * only (`session_busy`).
   */
  admit?: (effect: Effect) => void;
}

/** How a call stands: final, or waiting for a person. */
export interface CallOutcome {
  callId: string;
  toolName: string;
  /** Arguments as received, for history entries of queued calls. */
  argsText: string;
  status: CallStatus;
  /** False while the call awaits approval or is parked. */
  final: boolean;
  result: ToolResult;
  isError: boolean;
  /** Code of a refusal before execute (`unknown_tool`, `invalid_tool_input`). */
  errorCode?: WeftError["code"];
  /** Details of the refusal, such as the failing `path`. */
  errorDetails?: Record<string, unknown>;
  durationMs: number;
  attempts: number;
  /** A successful call of an `endsTurn` tool. */
  endsTurn: boolean;
  stubbed?: boolean;
  /** Thread file holding the full result when the recorded one was capped. */
  fullResultPath?: string;
  /**
   * A person's decision that the call already held, made by the same person (a retry after a lost
   * answer or a restart): nothing was done again; this is how the call stands.
   */
  repeated?: true;
}

/** `effectKey = <branchId>:<callId>` (weft's effect table), stable across retries and restarts. */
export function effectKeyOf(branchId: string, callId: string): string {
  return `${branchId}:${callId}`;
}

/** The call id inside `effectKey`, a key of `thread`'s branch ({@link effectKeyOf}, {@link branchIdOf}). */
export function callIdOfEffectKey(thread: { readonly threadId: string; readonly branchId?: string }, effectKey: string): string {
  return effectKey.slice(branchIdOf(thread).length + 1);
}

/** How a direct call's id begins (`tool_<name>_...`): no model call takes an id of this form (it could take a keyed call's first). */
export const DIRECT_CALL_PREFIX = "tool_";

/**
 * The id of a direct call of `toolName` made under an Idempotency-Key `claim` for user `scope`:
 * every retry of the request gets the same id, so a retry after a restart cut the first one finds
 * that call (its result, or its recovery by effect policy) instead of running the tool again.
 * Keyed (HMAC-SHA-256 under the user's `key`, `AccountApi.callIdKey`) because the claim's
 * fingerprint is a plain hash of the input: anyone who reads the id (a reader of the thread, a
 * provider handed the effect key) could otherwise test guesses of a secret in it offline. A call
 * stored under the unkeyed id of before (`stored` finds it) keeps that id, so its retry finds it.
 */
export async function keyedCallId(key: string, scope: string, claim: IdempotencyClaim, toolName: string, stored: (callId: string) => boolean): Promise<string> {
  const text = `${scope}\n${claim.key}\n${claim.fingerprint}`;
  const unkeyed = `${DIRECT_CALL_PREFIX}${toolName}_${(await sha256Hex(text)).slice(0, 24)}`;
  return stored(unkeyed) ? unkeyed : `${DIRECT_CALL_PREFIX}${toolName}_${(await hmacSha256Hex(key, text)).slice(0, 24)}`;
}

/**
 * The branch of a new thread `threadId`: its id, a dot and 8 random hex digits, so a thread made
 * again on a deleted one's id is a new branch. A direct call's scratch thread (`scratch`) keeps its
 * id: made again for a repeat of the call's key, it is that same call, whose effect key stays.
 */
export function newBranchId(threadId: string, scratch = false): string {
  if (scratch) return threadId;
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return `${threadId}.${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * The branch of a thread's effect keys: the one stored at its creation, or its id for a thread
 * stored before threads had one (whose calls keep the keys they were journaled with).
 */
export function branchIdOf(thread: { readonly threadId: string; readonly branchId?: string }): string {
  return thread.branchId ?? thread.threadId;
}

/**
 * A stored call as the thread's API answers it (`GET /threads/:id/calls`): without `effect`, the
 * class and setting its row was started under, which recovery alone reads (see `LedgerRecord.effect`).
 * Its `input` is what a model or tool code handed weft (a queued call's arguments), stored as given:
 * it is cleaned by `redactor.content` (numbers too), which the answer's `value` is not.
 */
export function publicRecord<T extends { effect?: StartedAs; input?: unknown }>({ effect: _startedAs, ...record }: T, redactor: Redactor): Omit<T, "effect"> {
  if (record.input !== undefined) record.input = redactor.content(record.input);
  return record;
}

/** Which calls a page of `GET /threads/:id/calls` holds: `ids` (those calls in that order), or a status filter and an offset. */
export interface CallsPageOptions {
  status?: CallStatus | readonly CallStatus[];
  offset?: number;
  ids?: readonly string[];
}

/**
 * A page of the thread's calls, each a {@link publicRecord}: with `ids`, those calls in that order
 * (an id with no call left out, read while the page has room); else oldest first, at most `limit`
 * from `offset`, of `status` when given.
 */
export function callsPage(ledger: Pick<LedgerQueries, "getMany" | "list">, options: CallsPageOptions, limit: number, redactor: Redactor): { calls: Omit<LedgerRecord, "effect">[]; hasMore: boolean } {
  const shown = (call: LedgerRecord) => publicRecord(call, redactor);
  const page = options.ids ? pageWithin(ledger.getMany(options.ids), options.ids.length, shown) : pageWithin(ledger.list(limit + 1, options.offset ?? 0, options.status), limit, shown);
  return { calls: page.items, hasMore: page.more };
}

/**
 * A call ready to run: its tool, parsed input, the effect class and setting it runs under (the
 * tool's, or for a call that may have run the more cautious of those and the ones it started
 * under: judge.ts), and the row it may already have.
 */
export interface ReadyCall extends EffectTerms {
  request: CallRequest;
  tool: CompiledTool;
  input: unknown;
  existing?: CallRecord;
  approvedBy?: string;
  startedAt: number;
}
