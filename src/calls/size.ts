/**
 * Result size: what the model sees is capped (with a notice naming the call that reads the rest);
 * the full payload and any attachments go to the thread's files, so nothing fails to persist on size.
 * @module
 */
import { base64Bytes, byteLength, fitsBytes } from "../bytes.js";
import type { AttachmentRef, ToolAttachment, ToolResult } from "../protocol.js";
import { readFileInput } from "./file-pages.js";

/** Bytes of result text the model sees by default. */
export const DEFAULT_RESULT_CAP_BYTES = 32 * 1024;

/** Bytes of a stack trace kept with a result (the message is capped with the result itself). */
export const MAX_STACK_BYTES = 16 * 1024;

/** Where capped results and attachments are written. */
export interface FileSink {
  /**
   * Stores `data` (text, or base64 for binary) at `path`, `size` bytes; returns its size as stored,
   * which is what a reader gets (the thread's secrets replaced, in its text and its bytes).
   */
  writeFile(path: string, data: string, mimeType: string, size: number): number | void;
  /** The URL path a client fetches a stored file from (named by the notice when no tool reads files). */
  fileUrl(path: string): string;
  /**
   * The tool a model calls to read a stored file in pages (`read_file`), when the thread offers it
   * (an author's tool of that name takes its place, and the notice names the route instead).
   */
  readonly readTool?: string;
  /**
   * What a reader may see of a text or a value the tool made (`Redactor.content`): the thread's secrets replaced. A
   * call record keeps its result text and `errorDetails` through it; the model's part is cut from
   * the text, and `read_file` pages it, so no secret is split across the cut or a page's edge.
   */
  redact?<T>(value: T): T;
  /** Attachments one result may store (`WEFT_MAX_ATTACHMENTS_PER_CALL`); more store none. */
  readonly maxAttachments?: number;
  /** The text stored at `path` (as stored: the thread's secrets replaced), or undefined when there is none. */
  readFile?(path: string): string | undefined;
}

const encoder = new TextEncoder();

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8, cut on a character boundary. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.byteLength <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // don't split a multi-byte character
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/**
 * Characters of an attachment's name its path keeps, the last ones (its extension with them): a
 * page of files goes on from a path sent back in a URL (`?cursor=`), and the name is the tool's to
 * make long. The attachment's index before it keeps paths apart; the name itself is kept whole.
 */
export const MAX_PATH_NAME_CHARS = 200;

function isInline(a: ToolAttachment | AttachmentRef): a is ToolAttachment {
  return typeof (a as ToolAttachment).data === "string";
}

/**
 * Stores attachments and an over-cap result text as files and returns the result to record and
 * show the model, plus the full result's path when it was capped.
 */
export function capResult(
  result: ToolResult,
  callId: string,
  capBytes: number,
  sink: FileSink,
): { result: ToolResult; fullResultPath?: string } {
  const out: ToolResult = { ...result };
  // Cut once redacted: a cut made first could keep a secret's first characters, and a stack starts
  // with the error's message, which may quote the caller's input ahead of a secret.
  if (result.stack !== undefined) out.stack = truncateUtf8(sink.redact ? sink.redact(result.stack) : result.stack, MAX_STACK_BYTES);
  const max = sink.maxAttachments ?? Number.POSITIVE_INFINITY;
  if (result.attachments && result.attachments.length > max) {
    // All or nothing: a result over the limit stores no attachment, and says why.
    const field = result.status === "success" ? "result" : "error";
    delete out.attachments;
    out[field] = `${result[field] ?? ""}\n[weft: the tool returned ${result.attachments.length} attachments; the limit is ${max} per call (WEFT_MAX_ATTACHMENTS_PER_CALL), so none were stored]`;
    return capResult(out, callId, capBytes, sink);
  }
  if (result.attachments) {
    out.attachments = result.attachments.map((a, i) => {
      if (!isInline(a)) return a;
      // Redacted before it is made safe: a secret's characters rewritten would no longer match.
      const name = a.name || `attachment-${i}`;
      const safe = (sink.redact ? sink.redact(name) : name).replace(/[^A-Za-z0-9._-]/g, "_").slice(-MAX_PATH_NAME_CHARS);
      const path = `calls/${encodeURIComponent(callId)}/attachments/${i}-${safe}`;
      const raw = base64Bytes(a.data);
      // Sized as stored, without the secrets its bytes held: a size of the raw bytes would tell their length.
      const size = sink.writeFile(path, a.data, a.mimeType, raw) ?? raw;
      // Its name is kept as the result's text is, redacted now: a Worker secret rotated later is not in the record to show.
      const ref: AttachmentRef = { name: sink.redact ? sink.redact(a.name) : a.name, mimeType: a.mimeType, path, size };
      return ref;
    });
  }
  const field = result.status === "success" ? "result" : "error";
  const text = result[field];
  if (text === undefined) return { result: out };
  // Measured and stored as a reader gets it: whether it is cut, and its size, tell nothing of a secret's length;
  // and a secret rotated later (a Worker secret the thread keeps no old value of) is not in the record to show.
  const seen = sink.redact ? sink.redact(text) : text;
  if (fitsBytes(seen, capBytes)) {
    out[field] = seen;
    return { result: out };
  }
  const path = `calls/${encodeURIComponent(callId)}/${field}.txt`;
  const size = sink.writeFile(path, seen, "text/plain; charset=utf-8", byteLength(seen)) ?? byteLength(seen);
  const shown = truncateUtf8(seen, capBytes);
  const shownBytes = byteLength(shown);
  // The model has the first bytes already: the call it is given reads on from there.
  const rest = sink.readTool
    ? `the whole text is the thread's file ${path}; call ${sink.readTool} with ${JSON.stringify(readFileInput(path, shownBytes))} to read the rest`
    : `the full text is at GET ${sink.fileUrl(path)}`;
  out[field] = `${shown}\n[weft: ${field} truncated to ${shownBytes} of ${size} bytes; ${rest}]`;
  return { result: out, fullResultPath: path };
}
