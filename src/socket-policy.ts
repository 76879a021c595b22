/**
 * What a thread's subscribers may do once connected, and how their sockets end: the limits on what
 * they send, a token's expiry kept with each socket (hibernation included), and the closes. The
 * thread's socket route (src/thread/sockets.ts) accepts them.
 * @module
 */
import { byteLength } from "./bytes.js";
import { limitOf } from "./limits.js";

/**
 * Polices what a subscriber sends (subscribers only listen; "ping" is answered by the runtime
 * without reaching here). A frame over `WEFT_MAX_WS_FRAME_BYTES` closes the socket with 1009; more
 * than `WEFT_MAX_WS_MESSAGES_PER_SECOND` messages in one second close it with 1008 (policy
 * violation). Only that connection ends: the thread and its other sockets go on.
 */
export function onSocketMessage(ws: WebSocket, message: string | ArrayBuffer, env: Readonly<Record<string, unknown>>): void {
  const size = typeof message === "string" ? byteLength(message) : message.byteLength;
  const maxBytes = limitOf(env, "wsFrameBytes");
  if (size > maxBytes) return closeQuietly(ws, 1009, `frame of ${size} bytes is over the ${maxBytes}-byte limit`);
  const perSecond = limitOf(env, "wsMessagesPerSecond");
  const now = Date.now();
  // Counted on the connection itself, so the count survives hibernation.
  const seen = (ws.deserializeAttachment() as SocketAttachment | null) ?? {};
  if (seen.expiresAt !== undefined && now >= seen.expiresAt) return closeQuietly(ws, TOKEN_EXPIRED.code, TOKEN_EXPIRED.reason);
  const start = seen.windowStart ?? now;
  const window = now - start >= 1000 ? { windowStart: now, count: 1 } : { windowStart: start, count: (seen.count ?? 0) + 1 };
  ws.serializeAttachment({ ...seen, ...window } satisfies SocketAttachment);
  if (window.count > perSecond) closeQuietly(ws, 1008, `over the limit of ${perSecond} messages per second`);
}

/** What a socket keeps across hibernation: its token's expiry, its message-rate window, what it was sent. */
export interface SocketAttachment {
  /** Epoch ms when the token it was opened with expires; absent for credentials that do not. */
  expiresAt?: number;
  windowStart?: number;
  count?: number;
  /** Characters of frames sent on the connection, or a little more: written ahead of the sends (src/send-budget.ts). */
  sent?: number;
}

/**
 * How a socket whose token expired is closed: 1008 (policy violation) and a reason a client can
 * read. A client reconnects with a fresh token (the client's `subscribe` asks its `token` getter).
 */
export const TOKEN_EXPIRED = { code: 1008, reason: "token expired: reconnect with a fresh token" } as const;

/** When the token a socket was opened with expires (epoch ms), or Infinity. */
export function socketExpiry(ws: WebSocket): number {
  return (ws.deserializeAttachment() as SocketAttachment | null)?.expiresAt ?? Number.POSITIVE_INFINITY;
}

/** Closes a socket whose token expired ({@link TOKEN_EXPIRED}). */
export function closeExpired(ws: WebSocket): void {
  closeQuietly(ws, TOKEN_EXPIRED.code, TOKEN_EXPIRED.reason);
}

/** The close code of {@link closeToContinue}. */
const FRAMES_CONTINUE = 1013;

/**
 * How a socket is closed once its connection was sent `WEFT_MAX_WS_CHARS_PER_CONNECTION`
 * characters of frames, replayed and live together: 1013, Try Again Later (RFC 6455 section
 * 7.4.1), with a reason naming the last seq it was sent. The client reconnects with `since` that seq.
 */
export function closeToContinue(ws: WebSocket, lastSent: number): void {
  closeQuietly(ws, FRAMES_CONTINUE, `frames continue after seq ${lastSent}: reconnect with since=${lastSent}`);
}

/** Closes every socket of a thread that was removed (1000, `reason`): a client's reconnect then gets a plain 404. */
export function closeAll(ctx: DurableObjectState, reason: string): void {
  for (const ws of ctx.getWebSockets()) closeQuietly(ws, 1000, reason);
}

function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closing.
  }
}

/** A thread's sockets read together for its bursts, kept until a socket is accepted or closed. */
export interface KnownSockets {
  all: WebSocket[];
  /** Of `all`, those taking a message a frame; and those taking batches (`?batch=1`). */
  plain: WebSocket[];
  batched: WebSocket[];
  /** The earliest token expiry among them (epoch ms), Infinity when none expires. */
  earliest: number;
}

/**
 * `all` split by how each socket takes its frames (`batched`: those that asked for batches), with
 * the earliest of their tokens' expiries (`expiresAt`, epoch ms or Infinity): made once per change
 * of a thread's sockets, not per burst.
 */
export function knownSockets(all: WebSocket[], batched: ReadonlySet<WebSocket>, expiresAt: (ws: WebSocket) => number): KnownSockets {
  return { all, plain: all.filter((ws) => !batched.has(ws)), batched: all.filter((ws) => batched.has(ws)), earliest: Math.min(...all.map(expiresAt)) };
}
