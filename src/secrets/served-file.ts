/**
 * A thread's files as a reader gets them: without the secrets the thread holds, in their text and
 * in their bytes (binary, and text in an encoding that decodes as UTF-8 anyway, such as UTF-16 of
 * ASCII), and listed with the size of what is served. Files are stored redacted; when the thread's
 * secrets change (a fingerprint kept beside the files says), every file is stored again for the new
 * ones before any is listed or served: a size measured before a secret was known tells its length.
 * @module
 */
import { base64Bytes, byteLength, utf8Base64 } from "../bytes.js";
import { WeftError } from "../errors.js";
import { pageSize, pageWithin } from "../limits.js";
import { type FileContent, withContent } from "../content/file-content.js";
import type { FileInfo, FileTable } from "../ports/store.js";
import type { Redactor } from "./redact.js";

/** `file` as served: base64 data redacted in its bytes, text in its text and its bytes at once (so JSON stays JSON). */
function servedFile(file: FileContent, redactor: Redactor): FileContent {
  const data = file.encoding === "base64" ? redactor.base64(file.data) : redactor.textFile(file.data);
  return data === file.data ? file : { ...file, data };
}

/** What to store for `info` so that it is served as `data` would be, and its size in bytes as served. */
export function storedFile(info: FileInfo, data: string, redactor: Redactor): { data: string; size: number } {
  const served = servedFile(withContent(info, data), redactor);
  if (served.encoding === "base64") return { data: served.data, size: base64Bytes(served.data) };
  const size = byteLength(served.data);
  // An attachment stays base64 at rest, as `withContent` reads it.
  return { data: info.path.includes("/attachments/") ? utf8Base64(served.data) : served.data, size };
}

/**
 * Stored file data one request brings up to new secrets, at most (UTF-16 units): past it the work
 * is kept where it stopped and the request answers `session_busy`, so no request's CPU grows with
 * the thread's files and each one moves the work on.
 */
export const RESTATE_UNITS_PER_REQUEST = 16 * 1024 * 1024;

/** Files one request brings up to new secrets, at most, however little data each holds: each costs a read and maybe a write. */
export const RESTATE_FILES_PER_REQUEST = 4096;

/** Files' metadata read a statement while bringing them up: a batch is taken whole before any file is written again. */
const RESTATE_BATCH = 256;

/**
 * Every stored file redacted for `redactor`'s secrets, once per change of them. The mark kept with
 * the files is the secrets' fingerprint once all are done, or the fingerprint and the last path done.
 * Files are read by path from there a batch at a time (never every file's row).
 * @throws WeftError `session_busy` (retryable) when more than `budget` units, or
 * {@link RESTATE_FILES_PER_REQUEST} files, are left to do.
 */
function restate(files: FileTable, redactor: Redactor, budget: number): void {
  const fingerprint = redactor.fingerprint;
  const mark = files.redactedFor();
  if (mark === fingerprint) return;
  const [markedFor, through] = (mark ?? "").split("\n");
  let done = markedFor === fingerprint ? through : undefined;
  let spent = 0;
  let count = 0;
  for (;;) {
    // Taken whole before any is written again: a write replaces the row a lazy read would be on.
    const batch = [...files.list(RESTATE_BATCH, done)];
    if (batch.length === 0) break;
    for (const info of batch) {
      if (spent >= budget || count >= RESTATE_FILES_PER_REQUEST) {
        files.markRedactedFor(`${fingerprint}\n${done ?? ""}`);
        throw new WeftError("session_busy", "this thread's files are being brought up to its secrets, a part at a time; try again");
      }
      const stored = files.read(info.path);
      if (stored !== undefined) {
        const next = storedFile(info, stored, redactor);
        if (next.data !== stored || next.size !== info.size) files.write(info.path, next.data, info.mimeType, next.size, info.createdAt);
        spent += stored.length;
      }
      count++;
      done = info.path;
    }
  }
  files.markRedactedFor(fingerprint);
}

/** Which page of a thread's files to list (`GET /threads/:id/files?limit=&cursor=`). */
export interface FilePage {
  /** Files at most, 1 to 1000 (default 1000): `PAGE_SIZES.files` in src/limits.ts. */
  limit?: number;
  /** The previous page's `nextCursor` (its last path): the files after it by path. */
  cursor?: string;
}

/**
 * A page of the thread's files by path, each sized as it is served: at most `limit` and 4 MiB of
 * JSON (one file at least; `PAGE_BYTES`), after `cursor`, only the page's rows read. `nextCursor`
 * (the page's last path) asks for the files that follow, null on the last page; a file added or
 * deleted before it moves no other file into or out of the next page.
 * @throws WeftError `invalid_request` naming `limit` when it is out of range.
 * @throws WeftError `session_busy` while they are being brought up to new secrets (see {@link RESTATE_UNITS_PER_REQUEST}).
 */
export function listedFiles(files: FileTable, redactor: Redactor, page: FilePage = {}, budget = RESTATE_UNITS_PER_REQUEST): { files: FileInfo[]; nextCursor: string | null } {
  const limit = pageSize("files", page.limit);
  restate(files, redactor, budget);
  const { items, more } = pageWithin(files.list(limit + 1, page.cursor), limit, (info) => info);
  return { files: items, nextCursor: more ? items.at(-1)!.path : null };
}

/**
 * The file at `path` as served, or undefined when there is none.
 * @throws WeftError `session_busy` while the files are being brought up to new secrets.
 */
export function servedFileAt(files: FileTable, path: string, redactor: Redactor, budget = RESTATE_UNITS_PER_REQUEST): FileContent | undefined {
  restate(files, redactor, budget);
  const file = files.content(path);
  return file && servedFile(file, redactor);
}
