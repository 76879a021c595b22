/**
 * `weft/client`: a typed client for weft's HTTP and WebSocket API, for browsers, Node (22+) and
 * Workers. Every method is one request; answers are typed from the same interfaces the server
 * implements (`ThreadApi`, the event union `EventFrame`), so the two cannot drift apart.
 *
 * @example
 * import { WeftClient } from "weft/client";
 * const weft = new WeftClient({ url: "http://localhost:8787", token: apiKey });
 * const { threadId } = await weft.createThread({ agent: "example" });
 * const sub = weft.subscribe(threadId, { onEvent: (frame) => console.log(frame.seq, frame.type) });
 * await weft.postMessage(threadId, { content: "Roll two dice." });
 * @module
 */
// The account's answers from type-only modules: weft/client's declarations must reach no Workers type.
import type { ThreadPage, UserMcpServer, WaitingCall, WaitingPage } from "../account/types.js";
import type { AccountUsage } from "../usage/reports.js";
import type { Budget } from "../usage/budgets.js";
import type { CreateThreadInput, ThreadApi } from "../thread/api.js";
import type { PostMessageInput } from "../run/posted.js";
import type { RpcResult } from "../rpc.js";
import type { ToolListing } from "../tools/catalog.js";
import type { RemoteListingProblem, RemoteToolListing } from "../remote/tool-listing.js";
import type { DefineMcpServerOptions } from "../remote/define.js";
import type { GetMessagesOptions } from "../tools/thread-state.js";
import type { CallRecord, CallStatus, ClientAnswer, Message } from "../protocol.js";
import type { ScheduleOptions } from "../schedules/define.js";
import type { ScheduleRun } from "../schedules/info.js";
// `.ts` specifiers: the CLI (bin/) loads these files with Node's type stripping, which does not map `.js` to `.ts`.
import { type ConnectionOptions, WeftClientError, request, requestBytes } from "./request.ts";
import { byCursor, byOffset } from "./pages.ts";
import { type SubscribeOptions, type Subscription, subscribe } from "./subscribe.ts";

/**
 * The wire shapes the client hands back: WebSocket event frames (`{ seq, type, data }`, `seq`
 * counting from 1 per thread), stored messages and call records, as the server defines them.
 */
export type { EventFrame, BuiltinEventFrame, CustomEventFrame, EventPayloads, Message, CallRecord, CallStatus } from "../protocol.js";
/** The code of a failed turn where weft names its reason (`restart_loop`, `stream_cut`, `model_timeout`, `unsupported_content`, `invalid_output`). */
export type { TurnErrorCode } from "../events.js";
/** What `getThread` answers: the thread's metadata, `status` (`idle`, `running`, `waiting`), `messageCount`, `lastSeq`, the last turn, and its offered and unavailable tools. */
export type { ThreadInfo } from "../thread/api.js";
/** One entry of `listTools`: a tool's name, description, input and output JSON Schemas, effect, `endsTurn` and `needsApproval`. */
export type { ToolListing } from "../tools/catalog.js";
/** A remote MCP server's tool in `listTools`'s `remote`, and why a server offers fewer tools than it lists. */
export type { RemoteToolListing, RemoteListingProblem } from "../remote/tool-listing.js";
/**
 * What `listWaitingCalls` answers: a page of the calls that wait for the caller (`WaitingCall`:
 * thread, agent, call id, tool, status, park reason, since), the threads it could not read, and the cursor on.
 */
export type { WaitingCall, WaitingPage, WaitingProblem } from "../account/types.js";
/** A server the caller added (`addMcpServer`, `listMcpServers`): its name, definition and when it was added. */
export type { UserMcpServer } from "../account/types.js";
/** The options `addMcpServer` takes: those of `defineMcpServer` (docs/remote-mcp.md), `headers` aside. */
export type { DefineMcpServerOptions } from "../remote/define.js";
/**
 * Where and as whom the client connects (`url`, bearer `token`, optional `fetch` and `WebSocket`),
 * and the error every method throws: weft's error `code`, HTTP `status` and `details` for a non-2xx
 * answer; `network_error` (status 0) or `bad_response` when no weft answer arrived.
 */
export { WeftClientError, type ConnectionOptions } from "./request.ts";
/** A schedule as written (`createSchedule`'s body) and as the thread answers it (`listSchedules`). */
export type { ScheduleOptions, ScheduleTarget } from "../schedules/define.js";
/** A schedule as the thread answers it. */
export type { ScheduleInfo } from "../schedules/info.js";
/** Options and handle of `subscribe`: the live event stream that resumes from the last `seq` it saw. */
export type { SubscribeOptions, Subscription } from "./subscribe.ts";
/**
 * A posted message's `content`: text, or a user message's parts (`{ type: "text", text }`,
 * `{ type: "image", image, mediaType? }`, `{ type: "file", data, mediaType, filename? }`; data an
 * http(s) URL or base64), as `postMessage` takes it.
 */
export type { ContentPart, MessageContent } from "../content/parts.js";

/** What a thread RPC method answers over HTTP: the value of its `RpcResult`. */
type Answer<K extends keyof ThreadApi> = ThreadApi[K] extends (...args: any[]) => Promise<RpcResult<infer T>> ? T : never;

/** Body of `POST /threads` (the owner is whoever the token names). */
export type CreateThreadOptions = Omit<CreateThreadInput, "ephemeral" | "opening" | "parent"> & {
  /** `<channelId>:<key>`: names the thread, so the same token from the same user reaches the same thread (409 `thread_exists` on a second create). */
  continuationToken?: string;
};

/** What `POST /v1/tools/:name` answers: the outcome, plus where it ran. */
export type ToolCallOutcome = Answer<"callTool"> & {
  /** True when the call ran in a scratch thread (no session given). */
  scratchWorkspace?: boolean;
  /** Set when a scratch call waits for a person: the thread to approve or settle it in. */
  sessionId?: string;
};

/** Which event a frame is: a built-in one of a `type` (`isEvent`), or a tool's own (`isEmitted`). */
export { isEmitted, isEvent } from "./frames.ts";

/** How a person settles a parked call. */
export type Settlement = { outcome: "succeeded"; result: string } | { outcome: "failed"; error: string } | { outcome: "retry" };

/** The client's answer to a client tool's call (`answerCall`). */
export type { ClientAnswer } from "../protocol.js";

/** A client for one weft Worker. Methods throw {@link WeftClientError} for every error answer. */
export class WeftClient {
  readonly #conn: ConnectionOptions;

  /** @param options the Worker's `url` (a trailing slash is dropped), the bearer `token`, and optional `fetch` and `WebSocket` implementations */
  constructor(options: ConnectionOptions) {
    this.#conn = { ...options, url: options.url.replace(/\/+$/, "") };
  }

  #thread(threadId: string, rest = ""): string {
    return `/threads/${encodeURIComponent(threadId)}${rest}`;
  }

  /** `POST /threads`: creates a thread; answers its metadata (`threadId`, `agentId`, ...). */
  createThread(options: CreateThreadOptions = {}): Promise<Answer<"create">> {
    return request(this.#conn, "POST", "/threads", { body: options });
  }

  /**
   * Get or create by name (as the Agents SDK's `getAgentByName` or `useAgent({ name })`): the
   * thread of yours that `continuationToken` (`<channelId>:<key>`) names, created with `options`
   * when you have none. `created` says which; `options` apply only to a thread made now.
   * @throws WeftClientError as `createThread` does, except `thread_exists` (that is the thread answered)
   */
  async openThread(continuationToken: string, options: Omit<CreateThreadOptions, "continuationToken"> = {}): Promise<{ threadId: string; created: boolean }> {
    try {
      return { threadId: (await this.createThread({ ...options, continuationToken })).threadId, created: true };
    } catch (e) {
      const threadId = e instanceof WeftClientError && e.code === "thread_exists" ? e.details?.threadId : undefined;
      if (typeof threadId === "string") return { threadId, created: false };
      throw e;
    }
  }

  /**
   * `GET /threads`: the caller's threads, newest first; pass `nextCursor` back as `cursor` for the
   * next page. `limit` is 1 to 200 (default 50).
   * @throws WeftClientError `invalid_request` for a `limit` outside that range.
   */
  listThreads(options: { limit?: number; cursor?: string } = {}): Promise<ThreadPage> {
    return request(this.#conn, "GET", "/threads", { query: options });
  }

  /** `GET /threads/:id`: status (`idle`, `running`, `waiting`), `lastSeq`, message count, last turn. */
  getThread(threadId: string): Promise<Answer<"info">> {
    return request(this.#conn, "GET", this.#thread(threadId));
  }

  /** `DELETE /threads/:id`. */
  deleteThread(threadId: string): Promise<{ deleted: boolean }> {
    return request(this.#conn, "DELETE", this.#thread(threadId));
  }

  /**
   * `POST /threads/:id/messages`: stores the message and starts a turn (`queued` when one runs
   * already). `modelSettings` apply to side a's requests of the turn the message begins, each only
   * where the agent lists it in `turnSettings`.
   * @throws WeftClientError `invalid_request` (with `details.path`, such as `["modelSettings", "topP"]`)
   * for a setting out of range or one the agent does not allow.
   */
  postMessage(threadId: string, message: Omit<PostMessageInput, "traceparent" | "script"> & { script?: unknown[] }): Promise<Answer<"postMessage">> {
    return request(this.#conn, "POST", this.#thread(threadId, "/messages"), { body: message });
  }

  /**
   * `GET /threads/:id/messages`: one page (`limit` 1 to 1000, default 100; `offset`, `order`,
   * `maxDepth`, `includeSilent`); `hasMore` says whether another follows.
   * @throws WeftClientError `invalid_request` for a `limit` outside that range.
   */
  getMessages(threadId: string, options: GetMessagesOptions = {}): Promise<Answer<"getMessages">> {
    return request(this.#conn, "GET", this.#thread(threadId, "/messages"), { query: { ...options } as Record<string, string | number | boolean | undefined> });
  }

  /** Every message of a thread, page by page (`pageSize` per request: 1 to 1000, default 100), oldest first. */
  async *messages(threadId: string, options: Omit<GetMessagesOptions, "offset" | "limit" | "order"> & { pageSize?: number } = {}): AsyncGenerator<Message> {
    const { pageSize = 100, ...rest } = options;
    yield* byOffset(async (offset) => {
      const page = await this.getMessages(threadId, { ...rest, limit: pageSize, offset });
      return { items: page.messages, more: page.hasMore };
    });
  }

  // --- usage and budgets (src/usage/) ---
  /** `GET /threads/:id/usage`: the thread's tokens, cost and time, whole, per turn and per model, with its newest request rows. */
  getThreadUsage(threadId: string): Promise<Answer<"usage">> {
    return request(this.#conn, "GET", this.#thread(threadId, "/usage"));
  }

  /**
   * `GET /account/usage`: the caller's usage over UTC days `from`..`to` (`YYYY-MM-DD`, inclusive;
   * default the last 30 days): `total` over all of it, and a page of `groups` by `agent`, `model` or
   * `day` (default), at most `limit` (1 to 1000, default 1000); pass `nextCursor` as `cursor` for the next.
   * @throws WeftClientError `invalid_request` for a malformed day, grouping, limit or cursor.
   */
  getAccountUsage(options: { from?: string; to?: string; groupBy?: "agent" | "model" | "day"; limit?: number; cursor?: string } = {}): Promise<AccountUsage> {
    return request(this.#conn, "GET", "/account/usage", { query: options });
  }

  /** `GET /account/budgets`: the caller's own budgets. */
  getBudgets(): Promise<{ budgets: Budget[] }> {
    return request(this.#conn, "GET", "/account/budgets");
  }

  /** `PUT /account/budgets`: replaces the caller's own budgets. @throws WeftClientError `invalid_request` naming a bad entry. */
  setBudgets(budgets: Budget[]): Promise<{ budgets: Budget[] }> {
    return request(this.#conn, "PUT", "/account/budgets", { body: { budgets } });
  }
  // --- end usage and budgets ---

  /** `POST /threads/:id/stop`: stops the running or waiting turn; `stopped` is false when there was none. */
  stop(threadId: string): Promise<Answer<"stop">> {
    return request(this.#conn, "POST", this.#thread(threadId, "/stop"));
  }

  /**
   * `GET /v1/tools`: every tool with its input/output JSON Schema and effect, and a `configHash`;
   * with MCP servers, `remote`: the tools they offer the caller (each with its `server`), and why
   * any server offers fewer (docs/remote-mcp.md).
   */
  listTools(): Promise<{ tools: ToolListing[]; configHash: string; remote?: { tools: RemoteToolListing[]; problems: RemoteListingProblem[] } }> {
    return request(this.#conn, "GET", "/v1/tools");
  }

  /** `GET /mcp-servers`: the MCP servers the caller added. */
  listMcpServers(): Promise<{ servers: UserMcpServer[] }> {
    return request(this.#conn, "GET", "/mcp-servers");
  }

  /**
   * `POST /mcp-servers`: adds (or replaces) an MCP server for the caller, checked as a file under
   * `agents/mcp/` is, with no loopback host, literal headers or Worker secret; a bearer token is
   * named by an account env value. @throws WeftClientError `invalid_request` naming the field.
   */
  addMcpServer(name: string, options: Omit<DefineMcpServerOptions, "headers">): Promise<UserMcpServer> {
    return request(this.#conn, "POST", "/mcp-servers", { body: { name, ...options } });
  }

  /** `DELETE /mcp-servers/:name`: removes a server the caller added. */
  removeMcpServer(name: string): Promise<{ deleted: boolean }> {
    return request(this.#conn, "DELETE", `/mcp-servers/${encodeURIComponent(name)}`);
  }

  /**
   * `POST /v1/tools/:name`: calls a tool directly, validated like any call. A tool's own failure
   * is an outcome with `isError: true`; a refused input throws (`invalid_tool_input`, naming the path).
   */
  callTool(name: string, input: unknown, options: { sessionId?: string; continuationToken?: string } = {}): Promise<ToolCallOutcome> {
    return request(this.#conn, "POST", `/v1/tools/${encodeURIComponent(name)}`, { body: { input, ...options } });
  }

  /**
   * `GET /threads/:id/calls`: a page of the thread's call records in creation order, optionally only
   * those in one status (`parked`, `awaiting_approval`, ...): at most `limit` (1 to 1000, default 1000)
   * and 4 MiB of JSON from `offset` (default 0); `hasMore` says a next page starts at `offset` plus the page's length.
   */
  listCalls(threadId: string, options: { status?: CallStatus; limit?: number; offset?: number } = {}): Promise<Answer<"listCalls">> {
    return request(this.#conn, "GET", this.#thread(threadId, "/calls"), { query: options });
  }

  /**
   * Every call record of a thread in creation order (or only those in one `status`), page by page
   * (`pageSize` per request: 1 to 1000, default 1000). With `status`, a call that changes status
   * while the pages are read may be missed or seen twice.
   */
  async *calls(threadId: string, options: { status?: CallStatus; pageSize?: number } = {}): AsyncGenerator<CallRecord> {
    const { pageSize = 1000, status } = options;
    yield* byOffset(async (offset) => {
      const page = await this.listCalls(threadId, { ...(status ? { status } : {}), limit: pageSize, offset });
      return { items: page.calls, more: page.hasMore };
    });
  }

  /**
   * `GET /account/waiting`: the calls that wait for the caller (approvals to give, parked calls to
   * settle, client tools' calls to answer) in one page of their own threads, newest thread first:
   * `limit` threads (1 to 50, default 50); pass `nextCursor` back as `cursor`. A thread that could
   * not be read is in `problems`; one with more than 100 waiting calls shows its oldest and is in `more`.
   * @throws WeftClientError `invalid_request` for a `limit` outside that range or a cursor no page handed out.
   */
  listWaitingCalls(options: { limit?: number; cursor?: string } = {}): Promise<WaitingPage> {
    return request(this.#conn, "GET", "/account/waiting", { query: options });
  }

  /**
   * Every call that waits for the caller, page by page over their threads (`pageSize` threads a
   * request: 1 to 50, default 50). Threads a page could not read are skipped: `listWaitingCalls` names them.
   */
  async *waitingCalls(options: { pageSize?: number } = {}): AsyncGenerator<WaitingCall> {
    yield* byCursor(async (cursor) => {
      const page = await this.listWaitingCalls({ ...(options.pageSize ? { limit: options.pageSize } : {}), ...(cursor ? { cursor } : {}) });
      return { items: page.calls, next: page.nextCursor };
    });
  }

  /**
   * `GET /threads/:id/files`: a page of the thread's files by path (results capped for the model,
   * kept whole; tools' attachments), at most `limit` (1 to 1000, default 1000) and 4 MiB of JSON;
   * pass `nextCursor` back as `cursor` for the next page.
   * @throws WeftClientError `invalid_request` for a `limit` out of range, `thread_not_found`.
   */
  listFiles(threadId: string, options: { limit?: number; cursor?: string } = {}): Promise<Answer<"listFiles">> {
    return request(this.#conn, "GET", this.#thread(threadId, "/files"), { query: options });
  }

  /** Every file of a thread by path, page by page (`pageSize` per request: 1 to 1000, default 1000). */
  async *files(threadId: string, options: { pageSize?: number } = {}): AsyncGenerator<Answer<"listFiles">["files"][number]> {
    yield* byCursor(async (cursor) => {
      const page = await this.listFiles(threadId, { ...(options.pageSize ? { limit: options.pageSize } : {}), ...(cursor ? { cursor } : {}) });
      return { items: page.files, next: page.nextCursor };
    });
  }

  /**
   * `GET /threads/:id/files/<path>`: one file's bytes, with the content type it was stored with
   * (`path` as `listFiles` names it).
   * @throws WeftClientError `file_not_found` (or `thread_not_found`) for what is not there.
   */
  getFile(threadId: string, path: string): Promise<{ bytes: Uint8Array; contentType: string }> {
    return requestBytes(this.#conn, this.#thread(threadId, `/files/${path.split("/").map(encodeURIComponent).join("/")}`));
  }

  /** `GET /threads/:id/calls/:callId`. */
  getCall(threadId: string, callId: string): Promise<Answer<"getCall">> {
    return request(this.#conn, "GET", this.#thread(threadId, `/calls/${encodeURIComponent(callId)}`));
  }

  /** `POST .../approve`: runs a call waiting for approval, once; `argsHash` pins the arguments approved. */
  approve(threadId: string, callId: string, options: { argsHash?: string } = {}): Promise<Answer<"approve">> {
    return request(this.#conn, "POST", this.#thread(threadId, `/calls/${encodeURIComponent(callId)}/approve`), { body: options });
  }

  /** `POST .../deny`: the model gets a denial result (with `reason`). */
  deny(threadId: string, callId: string, options: { reason?: string } = {}): Promise<Answer<"deny">> {
    return request(this.#conn, "POST", this.#thread(threadId, `/calls/${encodeURIComponent(callId)}/deny`), { body: options });
  }

  /** `POST .../settle`: gives a parked call its outcome, or `retry` to run it again. */
  settle(threadId: string, callId: string, settlement: Settlement): Promise<Answer<"settle">> {
    return request(this.#conn, "POST", this.#thread(threadId, `/calls/${encodeURIComponent(callId)}/settle`), { body: settlement });
  }

  /**
   * `POST .../result`: answers a call of a client tool (`executionMode: "client"`; its
   * `tool_call_parked` event has `client: true` and the input) with its result or an error; the
   * turn goes on with it. Recorded once: a second answer throws `call_not_waiting` (409), while a
   * repeat with the same `idempotencyKey` (a retry after a lost answer) gets the first answer.
   * @throws WeftClientError `call_not_found` (404), `call_not_waiting` (409: answered, stopped, or
   *   not a client tool's call), `invalid_request` (400: neither or both of result and error).
   */
  answerCall(threadId: string, callId: string, answer: ClientAnswer, options: { idempotencyKey?: string } = {}): Promise<Answer<"settle">> {
    return request(this.#conn, "POST", this.#thread(threadId, `/calls/${encodeURIComponent(callId)}/result`), { body: answer, ...options });
  }

  /**
   * `GET /threads/:id/schedules`: a page of the thread's schedules, in creation order; pass
   * `nextCursor` back as `cursor` for the next page. `limit` is 1 to 1000 (default 100); a page
   * also stops at 1 MiB of JSON.
   * @throws WeftClientError `invalid_request` for a `limit` outside that range or a cursor not of this list.
   */
  listSchedules(threadId: string, options: { limit?: number; cursor?: string } = {}): Promise<Answer<"listSchedules">> {
    return request(this.#conn, "GET", this.#thread(threadId, "/schedules"), { query: options });
  }

  /** `POST /threads/:id/schedules`: makes a schedule (docs/schedules.md); 400 `invalid_schedule` names the bad field. */
  createSchedule(threadId: string, schedule: ScheduleOptions): Promise<Answer<"createSchedule">> {
    return request(this.#conn, "POST", this.#thread(threadId, "/schedules"), { body: schedule });
  }

  /** `DELETE /threads/:id/schedules/:scheduleId`: cancels it; no occurrence fires after this. */
  cancelSchedule(threadId: string, scheduleId: string): Promise<Answer<"cancelSchedule">> {
    return request(this.#conn, "DELETE", this.#thread(threadId, `/schedules/${encodeURIComponent(scheduleId)}`));
  }

  /** `GET /schedules/files`: your file schedules (`agents/schedules/`; an admin's also those of `weft:schedules`), each with the thread it runs in. */
  listFileSchedules(): Promise<{ schedules: Array<{ name: string; scheduleId: string; agentId: string; owner: string; threadId: string }> }> {
    return request(this.#conn, "GET", "/schedules/files");
  }

  /**
   * `POST /schedules/files/:name/run`: runs one of your file schedules now, in its thread, as its cron
   * would (docs/schedules.md, "Running one now"); its next occurrence keeps its time.
   * @throws WeftClientError `schedule_not_found` for a name that is not a file schedule of yours.
   */
  runFileSchedule(name: string): Promise<ScheduleRun & { name: string; threadId: string }> {
    return request(this.#conn, "POST", `/schedules/files/${encodeURIComponent(name)}/run`);
  }

  /**
   * Subscribes to a thread's events, from `since` on (default 0: the whole history, then live).
   * Reconnects by itself after any drop and resumes after the last `seq` delivered: no frame is
   * missed or delivered twice. A refused upgrade (bad token, unknown thread) ends the
   * subscription with that error (`onError`, `closed`) instead of retrying.
   */
  subscribe(threadId: string, options: SubscribeOptions): Subscription {
    return subscribe(this.#conn, threadId, options);
  }
}
