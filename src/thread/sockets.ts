/**
 * WebSocket subscription with replay. Accepting the socket and sending the backlog happen in one
 * synchronous step, so no event can land between them: the client gets every frame after its
 * cursor exactly once, then the live ones.
 * @module
 */
import { WeftError, echoedValue, quotedValue } from "../errors.js";
import { limitOf } from "../limits.js";
import { packFrames } from "../frame-batches.js";
import { BATCH_TAG, type Fanout } from "./fanout.js";
import type { EventSink } from "../ports/events.js";
import type { Caller } from "../rpc.js";
import { CALLER_HEADER } from "./api.js";
import { callerFromHeader, thrownError } from "./guard.js";
import { closeToContinue, type SocketAttachment } from "../socket-policy.js";

/**
 * A replay page: at most this many frames and about this many characters of their data (events
 * are up to 1 MiB each, and a log of them far outgrows a Durable Object's 128 MB), so a replay
 * holds one page at a time; large backlogs go out in several pages, in order.
 */
const REPLAY_PAGE = { frames: 5000, chars: 4 * 1024 * 1024 } as const;

/**
 * The thread's `GET .../ws`: the caller the Worker verified (its header) must pass `guard`, and
 * its token must not have expired since, before the socket is accepted and replayed
 * ({@link replayAndAccept}); a refused upgrade is a plain 401 or 404, never a socket that closes.
 * Any other path is 404 `not_found`.
 */
export function openSocket(
  ctx: DurableObjectState,
  events: Pick<EventSink, "since" | "lastSeq">,
  fanout: Fanout,
  request: Request,
  guard: (caller: Caller) => { createdAt: number },
  env: Readonly<Record<string, unknown>>,
): Response {
  const url = new URL(request.url);
  if (!url.pathname.endsWith("/ws")) return new WeftError("not_found", `no route ${echoedValue(url.pathname)}`).toResponse();
  const caller = callerFromHeader(request.headers.get(CALLER_HEADER));
  let createdAt = 0;
  const refused = !caller ? new WeftError("unauthenticated", "no verified caller") : thrownError(() => void (createdAt = guard(caller).createdAt));
  if (refused) return refused.toResponse();
  // A token that expired since the Worker verified it (within its clock skew) opens nothing.
  if (caller?.expiresAt !== undefined && Date.now() >= caller.expiresAt) return new WeftError("unauthenticated", "token expired").toResponse();
  // Every event goes to every socket: their number is bounded like any kept connection.
  const maxSockets = limitOf(env, "socketsPerThread");
  if (ctx.getWebSockets().length >= maxSockets) {
    return new WeftError("too_many_sockets", `this thread has ${maxSockets} open WebSocket subscriptions, the limit (WEFT_MAX_SOCKETS_PER_THREAD); close one first`, { limit: maxSockets }).toResponse();
  }
  const accepted = replayAndAccept(ctx, events, request, createdAt, limitOf(env, "wsCharsPerConnection"), caller?.expiresAt);
  // Frames queued until now were stored before the replay: they go to the sockets they were for.
  fanout.socketsChanged();
  return accepted;
}

/**
 * Upgrades to a hibernatable WebSocket and replays frames with `seq > since` (`?since=<seq>`,
 * default 0: everything). With `?batch=1` every message, replayed or live, is a JSON array of
 * frames in seq order (a burst goes out as a few messages instead of one per frame).
 * `?createdAt=<epoch ms>` names the thread the cursor belongs to (`createdAt` is this one's): a
 * thread removed and made again on its id starts its seqs over, and a cursor of the first is
 * refused rather than served the second's frames as if they went on from it.
 * A connection is sent about `budget` characters of frames (`WEFT_MAX_WS_CHARS_PER_CONNECTION`),
 * its replay first: a longer backlog goes a part per connection, each closed 1013 naming its last
 * seq ({@link closeToContinue}), and the reconnect (`since` that seq) gets the next. What the
 * replay spent is kept with the socket; live frames spend the rest (src/send-budget.ts).
 * `expiresAt` (epoch ms, the caller's token's `exp`) is kept with the socket, hibernation
 * included: the socket is closed then ({@link TOKEN_EXPIRED}).
 * @returns 101 with the socket, 426 `upgrade_required` without an upgrade header, 400
 * `invalid_request` for a bad `since`, `createdAt` or `batch`, 404 `thread_not_found` for a
 * `createdAt` that is not this thread's.
 */
export function replayAndAccept(ctx: DurableObjectState, events: Pick<EventSink, "since" | "lastSeq">, request: Request, createdAt: number, budget: number, expiresAt?: number): Response {
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") return new WeftError("upgrade_required", "expected a WebSocket upgrade (Upgrade: websocket)").toResponse();
  const params = new URL(request.url).searchParams;
  const named = params.get("createdAt");
  if (named !== null && !/^\d{1,15}$/.test(named)) return new WeftError("invalid_request", `createdAt: expected the thread's createdAt (epoch ms), got ${quotedValue(named)}`, { path: ["createdAt"] }).toResponse();
  if (named !== null && Number(named) !== createdAt) {
    return new WeftError("thread_not_found", `the thread made at ${named} is gone; the thread on this id now was made at ${createdAt}, and its seqs start over`, { createdAt }).toResponse();
  }
  const raw = params.get("since");
  const since = raw === null || raw === "" ? 0 : /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  const last = events.lastSeq();
  if (!Number.isSafeInteger(since) || since > last) return new WeftError("invalid_request", `since: expected a seq from 0 to ${last} (the newest), got ${quotedValue(raw ?? "")}`, { path: ["since"] }).toResponse();
  const batch = params.get("batch");
  if (batch !== null && batch !== "" && batch !== "0" && batch !== "1") return new WeftError("invalid_request", `batch: expected 1 (frames as JSON arrays) or 0, got ${quotedValue(batch)}`, { path: ["batch"] }).toResponse();
  const batched = batch === "1";
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  // The tag outlives hibernation: every later burst reaches this socket as arrays too.
  ctx.acceptWebSocket(server, batched ? [BATCH_TAG] : []);
  ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  // One synchronous step: no frame is stored meanwhile, so the pages end at `last`.
  let cursor = since;
  let chars = 0;
  while (cursor < last && chars < budget) {
    // A page stops at the budget too: the connection gets at most one frame past it.
    const frames = events.since(cursor, REPLAY_PAGE.frames, Math.min(REPLAY_PAGE.chars, budget - chars));
    if (frames.length === 0) break;
    const texts = frames.map((frame) => JSON.stringify(frame));
    for (const message of batched ? packFrames(texts) : texts) server.send(message);
    for (const text of texts) chars += text.length;
    cursor = frames[frames.length - 1]!.seq;
  }
  server.serializeAttachment({ ...(expiresAt === undefined ? {} : { expiresAt }), sent: chars } satisfies SocketAttachment);
  if (cursor < last) closeToContinue(server, cursor);
  return new Response(null, { status: 101, webSocket: client });
}
