/**
 * The Worker's half of `GET /threads/:id/ws`: what the thread is sent (the verified caller, never
 * the credential it was verified from) and the subprotocol the answer selects.
 * @module
 */
import { WeftError } from "../errors.js";
import type { Caller } from "../rpc.js";
import { TOKEN_PROTOCOL_PREFIX, SOCKET_PROTOCOL, offeredProtocols } from "../socket-token.js";
import { CALLER_HEADER } from "../thread/api.js";

/**
 * The upgrade as the thread gets it: the caller in {@link CALLER_HEADER}, and no `Authorization`,
 * `Sec-WebSocket-Protocol` or `?access_token=`: nothing past the Worker holds the token.
 */
export function threadUpgrade(req: Request, caller: Caller): Request {
  const url = new URL(req.url);
  url.searchParams.delete("access_token");
  const headers = new Headers(req.headers);
  for (const name of ["authorization", "sec-websocket-protocol", "cookie"]) headers.delete(name);
  headers.set(CALLER_HEADER, JSON.stringify(caller));
  return new Request(url, { headers });
}

/**
 * Whether the answer selects `weft`: when the client offered it (a client that offers subprotocols
 * fails a connection whose answer selects none of them).
 * @throws WeftError `invalid_request` for a token subprotocol offered without `weft`: the only one
 *   left to select would echo the token.
 */
export function selectsWeft(req: Request): boolean {
  const offered = offeredProtocols(req.headers.get("sec-websocket-protocol"));
  if (offered.includes(SOCKET_PROTOCOL)) return true;
  if (offered.some((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX))) {
    throw new WeftError("invalid_request", `Sec-WebSocket-Protocol: offer "${SOCKET_PROTOCOL}" with the token's subprotocol; the answer selects "${SOCKET_PROTOCOL}" and never the one carrying the token`, { path: ["Sec-WebSocket-Protocol"] });
  }
  return false;
}

/** The thread's answer, selecting `weft` when it accepted the socket (101). */
export function selectingWeft(res: Response): Response {
  if (res.status !== 101 || !res.webSocket) return res;
  const headers = new Headers(res.headers);
  headers.set("sec-websocket-protocol", SOCKET_PROTOCOL);
  return new Response(null, { status: 101, webSocket: res.webSocket, headers });
}
