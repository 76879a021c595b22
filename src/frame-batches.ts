/**
 * Batched WebSocket messages: a subscriber that asks for batches (`GET /threads/:id/ws?batch=1`)
 * gets its frames as JSON arrays, live and replayed alike.
 * @module
 */

/**
 * Upper bound, in bytes, of one batched message (a single larger frame still goes alone, as a
 * one-element array): a burst of small frames becomes a few messages, never one without bound.
 */
export const BATCH_MAX_BYTES = 128 * 1024;

/**
 * Packs serialized frames, in order, into JSON-array messages of about {@link BATCH_MAX_BYTES}
 * at most (measured as string length: a bound that keeps messages modest, not a protocol limit).
 */
export function packFrames(texts: readonly string[]): string[] {
  const messages: string[] = [];
  let part: string[] = [];
  let size = 2;
  for (const text of texts) {
    if (part.length > 0 && size + 1 + text.length > BATCH_MAX_BYTES) {
      messages.push(`[${part.join(",")}]`);
      part = [];
      size = 2;
    }
    part.push(text);
    size += text.length + 1;
  }
  if (part.length > 0) messages.push(`[${part.join(",")}]`);
  return messages;
}
