/**
 * UTF-8 and base64 sizes, shared by every size limit (bodies, messages, script steps, result caps, files).
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

/**
 * UTF-8 bytes of `text` as it is stored inside JSON text (an event's data, a row's JSON): its
 * escapes counted (a control character takes 6 bytes, a quote or backslash 2), its quotes not.
 */
export function jsonTextBytes(text: string): number {
  return byteLength(JSON.stringify(text)) - 2;
}

/**
 * Whether `text` written inside JSON fits in `maxBytes` of UTF-8 ({@link jsonTextBytes}). Short
 * strings answer without encoding: no UTF-16 unit takes more than 6 bytes escaped.
 */
export function fitsJsonBytes(text: string, maxBytes: number): boolean {
  return text.length * 6 <= maxBytes || jsonTextBytes(text) <= maxBytes;
}

/** Bytes that base64 `data` decodes to (whitespace ignored, padding counted off). */
export function base64Bytes(data: string): number {
  const clean = /\s/.test(data) ? data.replace(/\s/g, "") : data;
  return Math.floor((clean.length * 3) / 4) - (clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0);
}

/** `text`'s UTF-8 bytes as base64. */
export function utf8Base64(text: string): string {
  let binary = "";
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Bytes as lowercase hex, two digits each. */
const hexOf = (bytes: ArrayBuffer | Uint8Array) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  return hexOf(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** HMAC-SHA-256 of `text`'s UTF-8 bytes under `key` (its UTF-8 bytes), as lowercase hex. */
export async function hmacSha256Hex(key: string, text: string): Promise<string> {
  const hmac = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hexOf(await crypto.subtle.sign("HMAC", hmac, encoder.encode(text)));
}

/** `bytes` fresh random bytes (`crypto.getRandomValues`) as lowercase hex: a secret of `8 * bytes` bits. */
export function randomHex(bytes: number): string {
  return hexOf(crypto.getRandomValues(new Uint8Array(bytes)));
}
