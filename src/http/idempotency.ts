/**
 * The `Idempotency-Key` request header (IETF draft "The Idempotency-Key HTTP Header Field"): the
 * Worker checks it and fingerprints the request; the thread that acts keeps the key with its
 * answer (src/thread/store/idempotency.ts), so a retry replays the first answer.
 * @module
 */
import type { Context } from "hono";
import { sha256Hex } from "../bytes.js";
import { WeftError } from "../errors.js";
import type { IdempotencyClaim } from "../rpc.js";
import { canonicalJson } from "../tools/catalog.js";

/** The header's name (HTTP header names are case-insensitive). */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** Visible ASCII, 1 to 255 characters: room for a UUID or any client's own scheme. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The claim of a request that carries `Idempotency-Key`, or undefined without the header. The
 * fingerprint covers the method, the path and the validated body in canonical JSON (key order
 * does not matter), so the same key with another request is refused, not replayed.
 * @throws WeftError `invalid_request` for a key that is empty, over 255 characters or not visible ASCII.
 */
export function idempotencyOf(c: Context, body: unknown): Promise<IdempotencyClaim | undefined> {
  return idempotencyClaim(c.req.raw.headers, c.req.method, c.req.path, body);
}

/**
 * {@link idempotencyOf} for a request outside Hono: its headers, method and path (as sent, with
 * no percent-encoding to decode).
 * @throws WeftError `invalid_request` for a malformed key.
 */
export async function idempotencyClaim(headers: Headers, method: string, path: string, body: unknown): Promise<IdempotencyClaim | undefined> {
  const key = headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return undefined;
  if (!KEY.test(key)) {
    throw new WeftError("invalid_request", `${IDEMPOTENCY_HEADER}: expected 1 to 255 visible ASCII characters`, { path: ["headers", "idempotency-key"] });
  }
  return { key, fingerprint: await sha256Hex(`${method} ${path}\n${canonicalJson(body ?? null)}`) };
}
