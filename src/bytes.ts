/**
 * UTF-8 sizes, shared by every size limit (bodies, messages, script steps, result caps).
 * @module
 */

const encoder = new TextEncoder();

/** UTF-8 length of a string in bytes. */
export function byteLength(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * Whether `text` fits in `maxBytes` of UTF-8. Short strings answer without encoding: a string of
 * n UTF-16 units has at most 3n UTF-8 bytes.
 */
export function fitsBytes(text: string, maxBytes: number): boolean {
  return text.length * 3 <= maxBytes || byteLength(text) <= maxBytes;
}

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
