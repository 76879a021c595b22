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

/** Frames packed as messages: `ends[i]` is one past the index, among the frames, of message `i`'s last frame. */
export interface PackedFrames {
  messages: string[];
  ends: number[];
}

/**
 * Packs serialized frames, in order, into JSON-array messages of about {@link BATCH_MAX_BYTES}
 * at most (measured as string length: a bound that keeps messages modest, not a protocol limit).
 */
export function packFrames(texts: readonly string[]): string[] {
  return packFrameRuns(texts).messages;
}

/** {@link packFrames}, telling which frames each message holds (a socket closed mid-burst names its last). */
export function packFrameRuns(texts: readonly string[]): PackedFrames {
  const packed: PackedFrames = { messages: [], ends: [] };
  let part: string[] = [];
  let size = 2;
  const close = (end: number) => {
    packed.messages.push(`[${part.join(",")}]`);
    packed.ends.push(end);
  };
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    if (part.length > 0 && size + 1 + text.length > BATCH_MAX_BYTES) {
      close(i);
      part = [];
      size = 2;
    }
    part.push(text);
    size += text.length + 1;
  }
  if (part.length > 0) close(texts.length);
  return packed;
}
