/**
 * Compile-time ties between the response schemas (responses.ts) and the TypeScript types the
 * server builds its answers from: each pair must be the same type, field for field (optionality
 * included), so a field added to, removed from or changed in either one fails `npm run typecheck`
 * here until the other follows; and each route's answer is what the RPC method it unwraps answers.
 * Routes that build their answer themselves check it with `satisfies Body<...>` in place. Nothing here runs.
 * @module
 */
import type { UIMessage } from "ai";
import type * as z from "zod";
import type { AccountApi } from "../account/api.js";
import type { ThreadPage, WaitingPage } from "../account/types.js";
import type { ModelTool } from "../models/model.js";
import type { ErrorBody as ErrorBodyType } from "../errors.js";
import type { CallRecord, Message, ModelStepRecord, ToolCallRequest, ToolResult, TokenUsage } from "../protocol.js";
import type { Caller } from "../rpc.js";
import type { ThreadApi, ThreadInfo } from "../thread/api.js";
import type { FileInfo } from "../thread/store/files.js";
import type { ThreadMeta } from "../ports/store.js";
import type { TurnRecord } from "../thread/store/turns.js";
import type { MessagesResult } from "../tools/thread-state.js";
import type { ToolListing } from "../tools/catalog.js";
import type { RemoteListingProblem, RemoteToolListing } from "../remote/tool-listing.js";
import type { CallOutcome } from "../calls/call.js";
import type { DirectCallAnswer } from "./direct-call.js";
import type * as R from "./responses.js";
import type { ModelUsageRow } from "../usage/row.js";

/** True when `A` and `B` are the same type (not merely assignable either way: a missing optional field counts). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Fails to compile unless `T` is `true`. */
type Holds<T extends true> = T;
/** Objects (and arrays, deeply) written out field by field, so an interface and a zod type compare by their fields. */
type Flat<T> = T extends readonly (infer E)[] ? Flat<E>[] : T extends object ? (unknown extends T ? T : { [K in keyof T]: Flat<T[K]> }) : T;
/** Same type after {@link Flat}. */
type Matches<Schema extends z.ZodType, Type> = Same<Flat<z.output<Schema>>, Flat<Type>>;

/** What a thread's RPC method `M` answers when it succeeds (what its route unwraps and sends). */
type ThreadAnswer<M extends keyof ThreadApi> = ThreadApi[M] extends (...args: never[]) => Promise<infer R> ? (R extends { ok: true; value: infer V } ? V : never) : never;
/** The same for the user's account. */
type AccountAnswer<M extends keyof AccountApi> = AccountApi[M] extends (...args: never[]) => Promise<infer R> ? (R extends { ok: true; value: infer V } ? V : never) : never;

/** Each response schema against its server type; a `false` here names the pair that drifted. */
export type ResponseTypesMatch = [
  Holds<Matches<typeof R.ErrorBody, ErrorBodyType>>,
  Holds<Matches<typeof R.TokenUsage, TokenUsage>>,
  Holds<Matches<typeof R.ModelStepRecord, ModelStepRecord>>,
  Holds<Matches<typeof R.TurnRecord, TurnRecord>>,
  Holds<Matches<typeof R.ThreadMeta, ThreadMeta>>,
  Holds<Matches<typeof R.ModelTool, ModelTool>>,
  Holds<Matches<typeof R.ThreadInfo, ThreadInfo>>,
  Holds<Matches<typeof R.ThreadPage, ThreadPage>>,
  Holds<Matches<typeof R.ToolCallRequest, ToolCallRequest>>,
  Holds<Matches<typeof R.Message, Message>>,
  Holds<Matches<typeof R.MessagePage, MessagesResult>>,
  Holds<Matches<typeof R.ToolResult, ToolResult>>,
  Holds<Matches<typeof R.CallRecord, CallRecord>>,
  Holds<Matches<typeof R.CallList, { calls: CallRecord[]; hasMore: boolean }>>,
  Holds<Matches<typeof R.CallOutcome, CallOutcome>>,
  Holds<Matches<typeof R.DirectCallAnswer, DirectCallAnswer>>,
  Holds<Matches<typeof R.FileInfo, FileInfo>>,
  Holds<Matches<typeof R.FileList, { files: FileInfo[]; nextCursor: string | null }>>,
  Holds<Matches<typeof R.ToolListing, ToolListing>>,
  Holds<Matches<typeof R.Account, Pick<Caller, "userId" | "name" | "roles" | "admin">>>,
  // What each route sends is what its RPC method answers.
  Holds<Matches<typeof R.ThreadMeta, ThreadAnswer<"create">>>,
  Holds<Matches<typeof R.MessagePage, ThreadAnswer<"getMessages">>>,
  Holds<Matches<typeof R.PostedMessage, ThreadAnswer<"postMessage">>>,
  Holds<Matches<typeof R.CallList, ThreadAnswer<"listCalls">>>,
  Holds<Matches<typeof R.CallRecord, ThreadAnswer<"getCall">>>,
  Holds<Matches<typeof R.CallOutcome, ThreadAnswer<"approve">>>,
  Holds<Matches<typeof R.CallOutcome, ThreadAnswer<"deny">>>,
  Holds<Matches<typeof R.CallOutcome, ThreadAnswer<"settle">>>,
  Holds<Matches<typeof R.FileList, ThreadAnswer<"listFiles">>>,
  Holds<Matches<typeof R.Deleted, ThreadAnswer<"deleteFile">>>,
  Holds<Matches<typeof R.Stopped, ThreadAnswer<"stop">>>,
  Holds<Matches<typeof R.ThreadPage, AccountAnswer<"listThreads">>>,
  Holds<Matches<typeof R.WaitingPage, WaitingPage>>,
  Holds<Matches<typeof R.Deleted, AccountAnswer<"deleteEnv">>>,
  Holds<Matches<typeof R.RemoteToolListing, RemoteToolListing>>,
  Holds<Matches<typeof R.ToolList, { tools: ToolListing[]; configHash: string; remote?: { tools: RemoteToolListing[]; problems: RemoteListingProblem[] } }>>,
  // Usage (src/usage/).
  Holds<Matches<typeof R.ThreadUsage, ThreadAnswer<"usage">>>,
  Holds<Matches<typeof R.AccountUsage, AccountAnswer<"usage">>>,
  Holds<Matches<typeof R.ModelUsageRow, ModelUsageRow>>,
  // UIMessage's parts are the AI SDK's union of part types: every UI message fits the schema.
  Holds<UIMessage[] extends z.output<typeof R.ChatHistory>["messages"] ? true : false>,
];
