/**
 * Pages of a stored text file for a model: `read_file`'s rule, in UTF-8 bytes. A page starts at a
 * character's first byte and ends on a character boundary, and with its notice it fits under the
 * result cap, so reading a capped result page by page never caps a page again. The notices say
 * which bytes a page holds and the exact input that reads the next one.
 * @module
 */
import { byteLength } from "../bytes.js";
import { WeftError } from "../errors.js";

/** The name of weft's built-in tool that reads the thread's stored files (src/run/read-file.ts). */
export const READ_FILE_TOOL = "read_file";

/** The input of {@link READ_FILE_TOOL} that reads `path` from byte `offset`. */
export function readFileInput(path: string, offset: number): { path: string; offset: number } {
  return { path, offset };
}

/** The line after a page: the bytes it holds, and the call that reads on (or that the file ended). */
function pageNotice(path: string, offset: number, end: number, size: number): string {
  const next = end < size ? `call ${READ_FILE_TOOL} with ${JSON.stringify(readFileInput(path, end))} for the next page` : "end of file";
  return `\n[weft: bytes ${offset} to ${end} of ${size} of ${path}; ${next}]`;
}

/** Bytes of UTF-8 one character may take: the smallest page that always makes progress. */
const MAX_CHAR_BYTES = 4;

const encoder = new TextEncoder();

/** What {@link pageOf} answers: the page's text with its notice, and the byte range it holds. */
export interface FilePage {
  /** The page's text followed by its notice (one line starting `\n[weft: bytes`). */
  text: string;
  /** First byte of the page. */
  offset: number;
  /** One past the page's last byte: the next page's `offset`; equal to `size` at the end. */
  end: number;
  /** The whole file's UTF-8 bytes. */
  size: number;
}

/**
 * The page of `text` (a stored file at `path`) from byte `offset`, at most `length` bytes (default
 * and ceiling: what fits under `capBytes` beside the notice). The page is cut on a character
 * boundary, so it may hold up to 3 bytes fewer than asked.
 * @throws WeftError `invalid_tool_input` (`details.path` `["offset"]` or `["length"]`) for an offset
 * past the end or inside a character, or a length too short for the character at `offset`;
 * `invalid_config` when `capBytes` leaves no room for a page.
 */
export function pageOf(text: string, path: string, offset: number, length: number | undefined, capBytes: number): FilePage {
  const bytes = encoder.encode(text);
  const size = bytes.byteLength;
  if (offset > size) throw new WeftError("invalid_tool_input", `offset: ${offset} is past the end of ${path} (${size} bytes)`, { path: ["offset"], size });
  if (offset < size && (bytes[offset]! & 0xc0) === 0x80) {
    let start = offset;
    while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--;
    throw new WeftError("invalid_tool_input", `offset: byte ${offset} of ${path} is inside a character; start at ${start}, the character's first byte`, { path: ["offset"], size });
  }
  // The longest notice this file can have: every number at its most digits.
  const room = capBytes - byteLength(pageNotice(path, size, size, size + 1));
  if (room < MAX_CHAR_BYTES) {
    throw new WeftError("invalid_config", `WEFT_RESULT_CAP_BYTES (${capBytes}) leaves no room for a page of ${path} beside its notice`, { path: ["WEFT_RESULT_CAP_BYTES"] });
  }
  let end = Math.min(size, offset + Math.min(length ?? room, room));
  while (end < size && end > offset && (bytes[end]! & 0xc0) === 0x80) end--; // never split a character
  if (end === offset && offset < size) {
    throw new WeftError("invalid_tool_input", `length: ${length} byte(s) cannot hold the character at byte ${offset} of ${path}; ask for at least ${MAX_CHAR_BYTES}`, { path: ["length"] });
  }
  const page = new TextDecoder().decode(bytes.subarray(offset, end));
  return { text: page + pageNotice(path, offset, end, size), offset, end, size };
}
