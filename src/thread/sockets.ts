/**
 * WebSocket subscription with replay. Accepting the socket and sending the backlog happen in one
 * synchronous step, so no event can land between them: the client gets every frame after its
 * cursor exactly once, then the live ones.
 * @module
 */
import { WeftError } from "../errors.js";
import type { ThreadStore } from "./store/index.js";

/** Frames sent per replay batch; large backlogs go out in several batches, in order. */
const REPLAY_BATCH = 5000;

/**
 * Upgrades to a hibernatable WebSocket and replays frames with `seq > since` (`?since=<seq>`,
 * default 0: everything).
 * @returns 101 with the socket, 426 without an upgrade header, 400 for a bad `since`.
 */
export function replayAndAccept(ctx: DurableObjectState, store: ThreadStore, request: Request): Response {
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    return Response.json(new WeftError("invalid_request", "expected a WebSocket upgrade (Upgrade: websocket)").toBody(), {
      status: 426,
    });
  }
  const raw = new URL(request.url).searchParams.get("since");
  const since = raw === null || raw === "" ? 0 : /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  const last = store.events.lastSeq();
  if (!Number.isSafeInteger(since) || since > last) {
    return Response.json(
      new WeftError("invalid_request", `since: expected a seq from 0 to ${last} (the newest), got ${JSON.stringify(raw)}`, { path: ["since"] }).toBody(),
      { status: 400 },
    );
  }
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  ctx.acceptWebSocket(server);
  ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  for (let cursor = since; ; ) {
    const frames = store.events.since(cursor, REPLAY_BATCH);
    for (const frame of frames) server.send(JSON.stringify(frame));
    if (frames.length < REPLAY_BATCH) break;
    cursor = frames[frames.length - 1]!.seq;
  }
  return new Response(null, { status: 101, webSocket: client });
}
