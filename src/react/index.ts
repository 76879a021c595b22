/**
 * `weft/react`: `useThread`, a React hook over one weft thread. It subscribes to the thread's
 * events with `weft/client` (reconnecting by itself, resuming after the last `seq` it saw) and
 * folds them into what a chat screen shows: the stored messages, the text of the model step that
 * is streaming, the tool calls with `approve()` / `deny()` on those that wait for a person and
 * `answer()` on a client tool's call waiting for this client, the thread's status, and the connection. React 18 or newer is a peer dependency; the Worker never
 * imports this module.
 *
 * @example
 * import { useThread } from "weft/react";
 *
 * function Chat({ threadId }: { threadId: string }) {
 *   const { messages, streamingText, calls, status, send } = useThread({ url: "http://localhost:8787", threadId });
 *   return (
 *     <div>
 *       {messages.map((m) => <p key={m.id}>{m.role}: {m.content}</p>)}
 *       {streamingText && <p>assistant: {streamingText}</p>}
 *       {calls.filter((c) => c.approve).map((c) => <button key={c.callId} onClick={() => c.approve!()}>Approve {c.toolName}</button>)}
 *       <button disabled={status !== "idle"} onClick={() => send("Roll two dice.")}>Send</button>
 *     </div>
 *   );
 * }
 * @module
 */
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { type ClientAnswer, type EventFrame, type Message, type MessageContent, type SubscribeOptions, WeftClient, WeftClientError } from "../client/index.ts";
import { type ThreadCallState, type ThreadState, initialState, reduce } from "./state.ts";

/** What the hook folds events into: thread status, a call's state, the end of a turn. */
export type { ThreadCallState, ThreadStatus, TurnEnd } from "./state.ts";
/** The client the hook talks through, and the error its actions reject with. */
export { WeftClient, WeftClientError } from "../client/index.ts";
/** What a client tool's call is answered with (`ThreadCall.answer`, `answerCall`). */
export type { ClientAnswer } from "../client/index.ts";

/** Options of {@link useThread}: a `client`, or the `url` (and `token`) to make one with; and the thread. */
export interface UseThreadOptions {
  /** The thread to show; `null` or `undefined` shows nothing and opens no socket. */
  threadId: string | null | undefined;
  /** A `WeftClient` to use; when absent the hook makes one from `url`, `token`, `fetch` and `WebSocket`. */
  client?: WeftClient;
  /** The weft Worker's address (used when no `client` is given). */
  url?: string;
  /** A JWT or API key for `url` (used when no `client` is given); leave out against a development-mode weft. */
  token?: string;
  /** Also keep messages injected with `silent: true` (default false, as `GET /threads/:id/messages`). */
  includeSilent?: boolean;
  /** Called with every frame once, in `seq` order, after it is folded in (a tool's own events too). */
  onEvent?(frame: EventFrame): void;
  /** Reconnection timing of the subscription, in milliseconds (see `SubscribeOptions.reconnect`). */
  reconnect?: SubscribeOptions["reconnect"];
  /**
   * Answers client tool calls by itself (as the AI SDK's `onToolCall`): called once for each call
   * of a client tool (`executionMode: "client"`) that waits for this client, with the call (its
   * `toolName` and validated `input`); what it returns is sent as the answer, and a throw as
   * `{ error: <its message> }`. Before calling it the hook asks weft whether the call still waits,
   * so a call answered before the page loaded (seen again in the replay) is never handed over. An
   * answer refused because another client answered first (409 `call_not_waiting`) is dropped
   * quietly; any other refusal goes to `error`.
   */
  onClientCall?(call: ThreadCall): ClientAnswer | Promise<ClientAnswer>;
}

/** A tool call as the hook shows it: its state, and for a call waiting for approval, the two decisions. */
export interface ThreadCall extends ThreadCallState {
  /**
   * Present while the call waits for approval: approves it bound to the arguments shown
   * (`argsHash`), so it runs once, as the token's user. Resolves with the call's outcome, or with
   * `undefined` when weft refused (someone decided it first, say): then `error` holds the
   * {@link WeftClientError}. It never rejects, so a click handler needs no `catch`.
   */
  approve?(): Promise<Awaited<ReturnType<WeftClient["approve"]>> | undefined>;
  /**
   * Present while the call waits for approval: denies it; the model gets the denial with `reason`.
   * Resolves as `approve` does (`undefined` and `error` set on a refusal).
   */
  deny?(reason?: string): Promise<Awaited<ReturnType<WeftClient["deny"]>> | undefined>;
  /**
   * Present while a client tool's call waits for this client (`client: true`, status `parked`):
   * answers it with its result or an error, and the turn goes on (as the AI SDK's
   * `addToolResult`). Resolves as `approve` does (`undefined` and `error` set on a refusal).
   */
  answer?(answer: ClientAnswer): Promise<Awaited<ReturnType<WeftClient["answerCall"]>> | undefined>;
}

/** The subscription's state: whether frames can arrive now, and how far they got. */
export interface ThreadConnection {
  /** `connecting` before the first open, `connected`, `reconnecting` after a drop, `closed` when the subscription ended (see `error`) or there is no `threadId`. */
  state: "connecting" | "connected" | "reconnecting" | "closed";
  /** The `seq` of the last frame shown; a reconnect asks for the frames after it. */
  lastSeq: number;
  /** Connections opened so far (1 + reconnects). */
  connections: number;
}

/** What {@link useThread} returns. */
export interface UseThreadResult {
  /** The thread's stored messages, oldest first, kept current from `message_created` events. */
  messages: Message[];
  /** The text of the model step streaming now (its `text_delta` events so far); `""` between steps. */
  streamingText: string;
  /** The thread's tool calls, in the order they appeared, with their status. */
  calls: ThreadCall[];
  /** `idle`, `running` or `waiting` (for a person to decide a call), from the turn events. */
  status: ThreadState["status"];
  /** The last turn that finished (`completed`, `stopped`, `failed` with its error), or null. */
  lastTurn: ThreadState["lastTurn"];
  /**
   * Posts a user message, which starts a turn (or queues behind the running one): text, or parts
   * (text, images and files, as `postMessage` takes them; a message's `content` shows its text). `script` gives
   * the scripted model's steps for a thread without a model. Resolves with `{ queued, message? }` (no `message` while it waits behind a turn),
   * or with `undefined` when the request failed: then `error` holds the {@link WeftClientError}
   * (`invalid_request`, `network_error`, ...). Never rejects.
   */
  send(content: MessageContent, options?: { script?: unknown[] }): Promise<Awaited<ReturnType<WeftClient["postMessage"]>> | undefined>;
  /**
   * Answers client tool call `callId` (see {@link ThreadCall.answer}); for a handler that keeps
   * only the id. Resolves with the call's outcome, or `undefined` with `error` set (`call_not_waiting`
   * once it was answered or stopped). Never rejects.
   */
  answerCall(callId: string, answer: ClientAnswer): Promise<Awaited<ReturnType<WeftClient["answerCall"]>> | undefined>;
  /**
   * Calls tool `name` directly in this thread (`POST /v1/tools/:name` with the thread as
   * `sessionId`), as `weft.callTool` does: the client's way to act on state its tools keep.
   * Resolves with the call's outcome (a tool's own failure is `isError: true`), or `undefined` with
   * `error` set when weft refused it (`invalid_tool_input`, `session_busy`, ...). Never rejects.
   */
  callTool(name: string, input?: unknown): Promise<Awaited<ReturnType<WeftClient["callTool"]>> | undefined>;
  /** Stops the running turn. Resolves with `{ stopped }`, or `undefined` with `error` set when the request failed. Never rejects. */
  stop(): Promise<{ stopped: boolean } | undefined>;
  /** The last error: an action that failed, or the refusal that ended the subscription (401 `unauthenticated`, 404 `thread_not_found`). Null after a later action succeeds. */
  error: WeftClientError | null;
  /** The subscription's state and `lastSeq`. */
  connection: ThreadConnection;
  /**
   * The `data` of the last event of each type the thread's tools emitted (`state.emit(type, data)`),
   * by type, replayed from the thread's start: state a tool publishes to every client, such as
   * `emitted.cart` after `state.emit("cart", cart)`. A type never emitted reads as `undefined`.
   */
  emitted: Readonly<Record<string, unknown>>;
}

/**
 * Shows one weft thread in React. On mount it subscribes from the start of the thread's events
 * (so messages and calls are complete), and from then on every drop of the socket is followed by
 * a reconnect that asks for the frames after the last one shown: nothing is shown twice and
 * nothing is missed. Changing `threadId` starts over on the new thread.
 * @param options the thread, and a `client` or the `url`/`token` to reach weft with
 * @returns messages, streaming text, calls with `approve`/`deny` (or `answer`, a client tool's), status, `send`, `stop`, `answerCall`, `error`, `connection`
 * @throws TypeError during render when neither `client` nor `url` is given (a mistake in the code, not a runtime condition)
 */
export function useThread(options: UseThreadOptions): UseThreadResult {
  const { threadId, client: given, url, token, includeSilent } = options;
  const client = useMemo(() => {
    if (given) return given;
    if (!url) throw new TypeError("useThread: give either `client` or `url`");
    return new WeftClient({ url, ...(token ? { token } : {}) });
  }, [given, url, token]);

  const [state, dispatch] = useReducer(reduce, threadId ?? "", initialState);
  const [connection, setConnection] = useState<Omit<ThreadConnection, "lastSeq">>({ state: "connecting", connections: 0 });
  const [error, setError] = useState<WeftClientError | null>(null);
  // What has been delivered, kept outside React so a new subscription (a new client, StrictMode's
  // second mount) resumes after frames dispatched but not yet rendered.
  const delivered = useRef<{ threadId: string; lastSeq: number; createdAt?: number }>({ threadId: threadId ?? "", lastSeq: 0 });
  const onEvent = useRef(options.onEvent);
  onEvent.current = options.onEvent;
  const reconnect = useRef(options.reconnect);
  reconnect.current = options.reconnect;
  const onClientCall = useRef(options.onClientCall);
  onClientCall.current = options.onClientCall;
  // The client calls handed to `onClientCall` (or being checked), by thread: each goes once.
  const handled = useRef<{ threadId: string; callIds: Set<string> }>({ threadId: "", callIds: new Set() });

  useEffect(() => {
    if (!threadId) return;
    if (delivered.current.threadId !== threadId) {
      delivered.current = { threadId, lastSeq: 0 };
      dispatch({ kind: "reset", threadId });
      setError(null);
      setConnection({ state: "connecting", connections: 0 });
    } else {
      setConnection((c) => ({ ...c, state: c.connections > 0 ? "reconnecting" : "connecting" }));
    }
    const followed = delivered.current.createdAt;
    const subscription = client.subscribe(threadId, {
      since: delivered.current.lastSeq,
      // The cursor is this thread's: one made again on the id since is not resumed from it.
      ...(followed !== undefined ? { createdAt: followed } : {}),
      onEvent(frame) {
        delivered.current.lastSeq = frame.seq;
        delivered.current.createdAt ??= subscription.createdAt;
        dispatch({ kind: "frame", frame });
        onEvent.current?.(frame);
      },
      onOpen: () => setConnection((c) => ({ state: "connected", connections: c.connections + 1 })),
      onClose: () => setConnection((c) => ({ ...c, state: "reconnecting" })),
      onError(e) {
        setError(e);
        setConnection((c) => ({ ...c, state: "closed" }));
      },
      ...(reconnect.current ? { reconnect: reconnect.current } : {}),
    });
    return () => subscription.close();
  }, [client, threadId]);

  // An action's answer; a failure goes to `error` (and the answer is undefined), never a rejection
  // that a click handler would leave unhandled.
  const act = useCallback(async <T,>(run: () => Promise<T>): Promise<T | undefined> => {
    try {
      const answer = await run();
      setError(null);
      return answer;
    } catch (e) {
      setError(e instanceof WeftClientError ? e : new WeftClientError("bad_response", e instanceof Error ? e.message : String(e), 0));
      return undefined;
    }
  }, []);

  const send = useCallback(
    (content: MessageContent, opts: { script?: unknown[] } = {}) => act(() => client.postMessage(need(threadId), { content, ...(opts.script ? { script: opts.script } : {}) })),
    [act, client, threadId],
  );
  const stop = useCallback(() => act(() => client.stop(need(threadId))), [act, client, threadId]);
  const answerCall = useCallback((callId: string, answer: ClientAnswer) => act(() => client.answerCall(need(threadId), callId, answer)), [act, client, threadId]);
  const callTool = useCallback((name: string, input?: unknown) => act(() => client.callTool(name, input ?? {}, { sessionId: need(threadId) })), [act, client, threadId]);

  const current = state.threadId === threadId ? state : initialState(threadId ?? "");
  const calls = useMemo(
    () =>
      current.calls.map((call): ThreadCall => {
        if (call.status === "parked" && call.client) return { ...call, answer: (answer: ClientAnswer) => answerCall(call.callId, answer) };
        if (call.status !== "awaiting_approval" || !threadId) return call;
        return {
          ...call,
          approve: () => act(() => client.approve(threadId, call.callId, call.argsHash ? { argsHash: call.argsHash } : {})),
          deny: (reason?: string) => act(() => client.deny(threadId, call.callId, reason === undefined ? {} : { reason })),
        };
      }),
    [current.calls, act, answerCall, client, threadId],
  );

  useEffect(() => {
    if (!threadId || !onClientCall.current) return;
    if (handled.current.threadId !== threadId) handled.current = { threadId, callIds: new Set() };
    const seen = handled.current.callIds;
    for (const call of calls) {
      if (!call.answer || seen.has(call.callId)) continue;
      seen.add(call.callId);
      void answerByHandler(client, threadId, call, () => onClientCall.current, setError);
    }
  }, [calls, client, threadId]);

  const messages = useMemo(() => (includeSilent ? current.messages : current.messages.filter((m) => !m.silent)), [current.messages, includeSilent]);

  return {
    messages,
    streamingText: current.streaming?.text ?? "",
    calls,
    status: current.status,
    lastTurn: current.lastTurn,
    send,
    stop,
    answerCall,
    callTool,
    error,
    connection: { ...connection, ...(threadId ? {} : { state: "closed" as const }), lastSeq: current.lastSeq },
    emitted: current.emitted,
  };
}

/**
 * Hands a client call to `onClientCall` if weft says it still waits for a client, and sends what
 * the handler gives. A refusal other than `call_not_waiting` (another client answered) goes to `fail`.
 */
async function answerByHandler(
  client: WeftClient,
  threadId: string,
  call: ThreadCall,
  handler: () => UseThreadOptions["onClientCall"],
  fail: (error: WeftClientError) => void,
): Promise<void> {
  try {
    const record = await client.getCall(threadId, call.callId);
    const run = handler();
    if (record.status !== "parked" || !run) return;
    let answer: ClientAnswer;
    try {
      answer = await run(call);
    } catch (e) {
      answer = { error: e instanceof Error ? e.message : String(e) };
    }
    await client.answerCall(threadId, call.callId, answer);
  } catch (e) {
    if (e instanceof WeftClientError && e.code === "call_not_waiting") return;
    fail(e instanceof WeftClientError ? e : new WeftClientError("bad_response", e instanceof Error ? e.message : String(e), 0));
  }
}

/** The thread id an action needs; without one the action fails as a refused request would. */
function need(threadId: string | null | undefined): string {
  if (!threadId) throw new WeftClientError("invalid_request", "useThread: no threadId to act on", 0);
  return threadId;
}
