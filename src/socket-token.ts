/**
 * How a bearer token rides a WebSocket upgrade without being part of the URL. Browsers cannot set
 * headers on a WebSocket, but they can offer subprotocols (`Sec-WebSocket-Protocol`): a client
 * offers {@link SOCKET_PROTOCOL} and one `weft.bearer.<base64url>` value, and the server selects
 * `weft`, never the value that carries the token. URLs land in request logs (Logpush's
 * `ClientRequestURI`), proxies' access logs and browser tools; headers far less often (Workers Logs
 * and Tail Workers do keep request headers, and redact only those named like credentials, which
 * this one is not: docs/authentication.md). The form follows Kubernetes'
 * `base64url.bearer.authorization.k8s.io.<token>`: base64url (RFC 4648 section 5) of the token's
 * UTF-8 bytes, without padding, so any token is a valid subprotocol (an HTTP token, RFC 9110).
 * Shared by weft/client and the Worker; no server code here.
 * @module
 */

/** The subprotocol of weft's event socket: the one the server selects whenever a client offers it. */
export const SOCKET_PROTOCOL = "weft";

/** How the offered subprotocol that carries the token starts; the rest is the token's base64url. */
export const TOKEN_PROTOCOL_PREFIX = "weft.bearer.";

/** The subprotocols a client offers to send `token` (non-empty): `["weft", "weft.bearer.<base64url>"]`. */
export function socketProtocols(token: string): [string, string] {
  let binary = "";
  for (const byte of new TextEncoder().encode(token)) binary += String.fromCharCode(byte);
  return [SOCKET_PROTOCOL, TOKEN_PROTOCOL_PREFIX + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")];
}

/** The values of a `Sec-WebSocket-Protocol` header (comma-separated, repeated headers joined): none for null. */
export function offeredProtocols(header: string | null): string[] {
  return (header ?? "").split(",").map((p) => p.trim()).filter((p) => p !== "");
}

/**
 * The token a `weft.bearer.<base64url>` subprotocol carries; null when the rest is not unpadded
 * base64url of non-empty UTF-8 (the caller refuses it as a credential it cannot read).
 */
export function tokenOfProtocol(protocol: string): string | null {
  const text = protocol.slice(TOKEN_PROTOCOL_PREFIX.length);
  if (!protocol.startsWith(TOKEN_PROTOCOL_PREFIX) || !/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}
