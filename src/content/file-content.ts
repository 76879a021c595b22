/**
 * A stored file as a reader gets it: text as is; an attachment is stored base64, and a text one is
 * decoded when it is UTF-8 (so redaction can read it); binary content stays base64.
 * @module
 */
import type { FileInfo } from "../ports/store.js";

/** A file with its content: `data` is text (`utf-8`) or base64. */
export type FileContent = FileInfo & { data: string; encoding: "utf-8" | "base64" };

/** The content of the file `info` describes, from what is stored of it (`FileTable.content` gives this). */
export function withContent(info: FileInfo, stored: string): FileContent {
  const path = info.path;
  const text = info.mimeType.startsWith("text/") || info.mimeType.includes("json");
  if (!path.includes("/attachments/")) return { ...info, data: stored, encoding: text ? "utf-8" : "base64" };
  if (text) {
    try {
      const bytes = Uint8Array.from(atob(stored), (ch) => ch.charCodeAt(0));
      return { ...info, data: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes), encoding: "utf-8" };
    } catch {
      // Not UTF-8 after all: sent as stored.
    }
  }
  return { ...info, data: stored, encoding: "base64" };
}
