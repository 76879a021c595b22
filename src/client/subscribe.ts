/**
 * A thread's event stream that survives dropped connections: partysocket reconnects, and every
 * connection asks for `?since=<last seq delivered>`, so `onEvent` sees each frame exactly once
 * and in `seq` order, however often the network or the server drops the socket.
 * @module
 */
import ReconnectingWebSocket from "partysocket/ws";
import type { EventFrame } from "../protocol.js";
import type { ThreadInfo } from "../thread/api.js";
import { socketProtocols } from "../socket-token.ts";
import { type ConnectionOptions, WeftClientError, request, urlOf } from "./request.ts";

/** Options of `WeftClient.subscribe`. */
export interface SubscribeOptions {
  /** Deliver frames with `seq` above this; default 0 (the whole history, then live frames). */
  since?: number;
  /**
   * The `createdAt` (epoch ms) of the thread `since` belongs to, when it came from an earlier
   * subscription (its {@link Subscription.createdAt}). A thread removed and made again on its id
   * starts its seqs over: a cursor of the first then ends the subscription with 404
   * `thread_not_found` instead of skipping the second's first frames. Default: the thread's as
   * the subscription starts (asked with `GET /threads/:id` before the first connection, again
   * until it answers).
   */
  createdAt?: number;
  /**
   * Called once per frame, in `seq` order, never twice for one `seq` and never with a gap. A frame
   * whose call throws counts as delivered; the error is rethrown in a microtask (the host reports it).
   */
  onEvent(frame: EventFrame): void;
  /** Called when the subscription ends for good: the upgrade was refused (bad token, unknown thread). */
  onError?(error: WeftClientError): void;
  /** Called on every (re)connection, with the `since` it asked for. */
  onOpen?(info: { since: number; connection: number }): void;
  /**
   * Called when an open connection drops and a reconnect follows (never after `close()` or an
   * error that ends the subscription), with the WebSocket close `code` and `reason`.
   */
  onClose?(info: { code: number; reason: string }): void;
  /**
   * A token for each connection, asked before every one (the first and each reconnect); default
   * the client's `token`. A JWT's socket is closed by the server at the token's `exp` (1008,
   * `token expired: ...`); with a getter that returns a fresh token the subscription reconnects
   * and resumes where it was, while a fixed token that expired ends it with 401 `unauthenticated`.
   */
  token?: () => string | undefined | Promise<string | undefined>;
  /** partysocket's reconnection timing, in milliseconds (defaults: 100 ms growing to 5 s, 10 s connect timeout). */
  reconnect?: { minReconnectionDelay?: number; maxReconnectionDelay?: number; connectionTimeout?: number; minUptime?: number };
}

/** A live subscription. */
export interface Subscription {
  /** The `seq` of the last frame delivered (the `since` of the next connection). */
  readonly lastSeq: number;
  /** The followed thread's `createdAt` (epoch ms) once known: keep it with `lastSeq` to resume later. */
  readonly createdAt: number | undefined;
  /** How many connections opened so far (1 + the reconnects). */
  readonly connections: number;
  /** Stops delivering and closes the socket; no reconnect follows. */
  close(): void;
  /** Resolves when the subscription ends: `null` after `close()`, or the error that ended it. */
  readonly closed: Promise<WeftClientError | null>;
}

/** The first and the longest wait between tries (ms): reconnects, asks for the thread, asks after a hole. */
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 5_000;

/**
 * Subscribes to `GET /threads/:id/ws`. A connection that fails before it opens is followed by
 * `GET /threads/:id` with the same token: a 4xx answer there (401 `unauthenticated`, 404
 * `thread_not_found`), a thread made again on the id (404 `thread_not_found`) or one whose newest
 * seq is below the cursor, or a cursor that is no seq (400 `invalid_request`), means no retry can succeed, so the subscription
 * ends with that error (`onError`, `closed`); anything else (the network, a restarting thread) is
 * retried.
 */
export function subscribe(conn: ConnectionOptions, threadId: string, options: SubscribeOptions): Subscription {
  let lastSeq = options.since ?? 0;
  let createdAt = options.createdAt;
  let connections = 0;
  let attempts = 0;
  let openedSinceAttempt = false;
  let ended = false;
  let finish: (error: WeftClientError | null) => void = () => {};
  const closed = new Promise<WeftClientError | null>((resolve) => (finish = resolve));
  const wsBase = conn.url.replace(/^http/i, "ws");
  const path = `/threads/${encodeURIComponent(threadId)}/ws`;

  // After a hole in the frames: the socket is closed and the next opened after a wait (see below).
  let gapWaitMs = 0;
  let gapTimer: ReturnType<typeof setTimeout> | undefined;
  let openedAt = 0;

  const end = (error: WeftClientError | null) => {
    if (ended) return;
    ended = true;
    clearTimeout(gapTimer);
    socket.close();
    if (error) options.onError?.(error);
    finish(error);
  };

  // Asked before every connection. Until the followed thread's createdAt is known, and after an
  // attempt that never opened, it first asks how the thread answers this caller: a refusal is
  // reported instead of retried forever, and no frame is taken before the cursor's thread is known
  // (a thread made again on the id meanwhile would otherwise be followed as if it were the first).
  const tokenNow = async () => (options.token ? await options.token() : conn.token);
  const nextConnection = async (): Promise<{ url: string; token: string | undefined }> => {
    let token = await tokenNow();
    if (createdAt === undefined || (attempts > 0 && !openedSinceAttempt)) {
      for (let wait = FIRST_WAIT_MS; !ended; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
        const now = await threadCheck({ ...conn, ...(token ? { token } : { token: undefined }) }, threadId, lastSeq, createdAt);
        if (now instanceof WeftClientError) end(now);
        else if (now) createdAt ??= now.createdAt;
        // Nothing answered: a known thread is tried again by connecting; an unknown one is asked again first.
        if (now !== null || createdAt !== undefined) break;
        await new Promise((r) => setTimeout(r, wait));
        // Asked again after each wait: one longer than the token's life would answer 401 with the old one.
        token = await tokenNow();
      }
    }
    attempts++;
    openedSinceAttempt = false;
    // batch=1: a burst of events arrives as a few JSON arrays of frames instead of one message each.
    // An empty token is no token, as over HTTP (request.ts): "" would be a token sent, and refused.
    return { url: urlOf(wsBase, path, { since: lastSeq, createdAt, batch: 1 }), token: token || undefined };
  };
  // partysocket asks for each connection's URL and subprotocols side by side: the n-th ask of
  // either gets the n-th connection's, prepared once. The token goes as a subprotocol, never in the
  // URL, where request logs and proxies would keep it (src/socket-token.ts).
  let prepared: { n: number; next: ReturnType<typeof nextConnection> } | undefined;
  const asked = { url: 0, protocols: 0 };
  const preparedFor = (which: keyof typeof asked) => {
    const n = asked[which]++;
    if (prepared?.n !== n) prepared = { n, next: nextConnection() };
    return prepared.next;
  };
  const nextUrl = async () => (await preparedFor("url")).url;
  const nextProtocols = async () => {
    const { token } = await preparedFor("protocols");
    return token ? socketProtocols(token) : null;
  };

  const socket = new ReconnectingWebSocket(nextUrl, nextProtocols, {
    WebSocket: conn.WebSocket ?? globalThis.WebSocket,
    minReconnectionDelay: FIRST_WAIT_MS,
    maxReconnectionDelay: LONGEST_WAIT_MS,
    connectionTimeout: 10_000,
    minUptime: 1_000,
    ...options.reconnect,
  });

  const reconnectAfterGap = () => {
    if (gapTimer !== undefined) return;
    // A connection that held for a while starts the waits over.
    gapWaitMs = gapWaitMs === 0 || Date.now() - openedAt > LONGEST_WAIT_MS ? FIRST_WAIT_MS : Math.min(gapWaitMs * 2, LONGEST_WAIT_MS);
    socket.close(); // nothing more is read from it; the timer opens the next
    gapTimer = setTimeout(() => {
      gapTimer = undefined;
      if (!ended) socket.reconnect();
    }, gapWaitMs);
  };

  // The handler's own failure is reported as the handler's (after this), not a reason to drop the frames after it.
  const deliver = (frame: EventFrame) => {
    try {
      options.onEvent(frame);
    } catch (e) {
      queueMicrotask(() => {
        throw e;
      });
    }
  };

  let open = false;
  socket.addEventListener("open", () => {
    open = true;
    openedAt = Date.now();
    openedSinceAttempt = true;
    connections++;
    options.onOpen?.({ since: lastSeq, connection: connections });
  });
  socket.addEventListener("close", (event) => {
    if (!open) return; // an attempt that never opened: still (re)connecting
    open = false;
    if (!ended) options.onClose?.({ code: event.code, reason: event.reason });
  });
  socket.addEventListener("message", (event) => {
    if (ended) return;
    let message: EventFrame | EventFrame[];
    try {
      message = JSON.parse(String(event.data)) as EventFrame | EventFrame[];
    } catch {
      return; // not a frame of weft's
    }
    for (const frame of Array.isArray(message) ? message : [message]) {
      if (ended) return;
      if (typeof frame?.seq !== "number" || frame.seq <= lastSeq) continue; // already delivered
      // A hole means a frame was lost in transit: ask again from the last one delivered, after a
      // wait that doubles while holes keep coming (partysocket's own reconnect would not wait).
      if (frame.seq !== lastSeq + 1) return reconnectAfterGap();
      lastSeq = frame.seq;
      deliver(frame);
    }
  });

  return {
    get lastSeq() {
      return lastSeq;
    },
    get connections() {
      return connections;
    },
    get createdAt() {
      return createdAt;
    },
    close: () => end(null),
    closed,
  };
}

/** What the subscription reads of `GET /threads/:id`. */
type ThreadNow = Pick<ThreadInfo, "createdAt" | "lastSeq">;

/**
 * How the thread answers this caller now (`GET /threads/:id`): the thread, the error that ends the
 * subscription (it refuses this caller, is another thread made on its id since `createdAt`, or
 * has no frame at the cursor `since`), or null when nothing answered (the network, a restart).
 */
async function threadCheck(conn: ConnectionOptions, threadId: string, since: number, createdAt: number | undefined): Promise<ThreadNow | WeftClientError | null> {
  let thread: ThreadNow;
  try {
    thread = await request<ThreadNow>(conn, "GET", `/threads/${encodeURIComponent(threadId)}`);
  } catch (e) {
    const error = e as WeftClientError;
    // A 4xx is the thread's answer to this caller, but for a timeout or a rate limit on the way (408, 429).
    const permanent = (error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) || error.code === "auth_not_configured";
    return permanent ? error : null;
  }
  if (createdAt !== undefined && thread.createdAt !== createdAt) {
    return new WeftClientError("thread_not_found", `thread ${threadId} made at ${createdAt} is gone; the thread on its id now was made at ${thread.createdAt}, and its seqs start over`, 404, { createdAt: thread.createdAt });
  }
  // A seq is a whole number from 0 to the newest: any other cursor is refused by every connection.
  if (!Number.isSafeInteger(since) || since < 0 || thread.lastSeq < since) {
    return new WeftClientError("invalid_request", `since: expected a seq from 0 to ${thread.lastSeq} (the newest), got ${since}`, 400, { path: ["since"] });
  }
  return thread;
}
