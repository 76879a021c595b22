/**
 * A thread's file as a reader gets it: its bytes without the secrets they hold. The answer's own
 * redaction reads text as text; this reads the bytes, for what text alone misses (binary, and text
 * in an encoding that decodes as UTF-8 anyway, such as UTF-16 of ASCII, NULs between the letters).
 * @module
 */
import type { Redactor } from "./redact.js";

/** `file` with its content's bytes redacted: base64 data decoded and encoded again, text read as bytes. */
export function servedFile<F extends { data: string; encoding: "utf-8" | "base64" }>(file: F, redactor: Redactor): F {
  const data = file.encoding === "base64" ? redactor.base64(file.data) : redactor.bytes(file.data);
  return data === file.data ? file : { ...file, data };
}
