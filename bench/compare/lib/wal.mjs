// @ts-check
/**
 * How far a target's SQLite write-ahead logs have grown. Local workerd keeps a Durable Object's
 * database in WAL mode and fsyncs the log at every commit. A log grows until it holds 1,000 frames
 * (SQLite's automatic checkpoint), then is rewritten from its start; and when workerd evicts an
 * object (about 10 s without requests) SQLite checkpoints its log and deletes it, so the object's
 * next commit starts a new one. A target's calls cost differently in the two phases (in 2 s steps
 * on 100 threads, a journaled target was 0.61-1.22x bare while both logs grew and 0.82-1.01x once
 * both were past their first checkpoint), so a fair step keeps every target in one phase, and
 * {@link largestLog} shows which.
 * @module
 */
import { closeSync, openSync, readSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** SQLite's default `wal_autocheckpoint`: a commit that leaves the log at this many frames or more checkpoints it. */
export const AUTOCHECKPOINT_FRAMES = 1000;
/** A WAL file's header and each frame's header before its page (sqlite.org/fileformat.html, "The WAL File Format"). */
const WAL_HEADER = 32;
const FRAME_HEADER = 24;
/** The header's magic number, its last bit the checksum's byte order. */
const WAL_MAGIC = 0x377f0682;

/** Frames a WAL file has room for (its size over the page size in its header); 0 for a file gone or not yet a log. */
function walFrames(file) {
  let fd;
  try {
    fd = openSync(file, "r");
  } catch (e) {
    // Deleted since the folder was listed: its object was evicted, which checkpointed it.
    if (/** @type {NodeJS.ErrnoException} */ (e).code === "ENOENT") return 0;
    throw e;
  }
  try {
    const size = statSync(file).size;
    const header = Buffer.alloc(WAL_HEADER);
    if (size < WAL_HEADER || readSync(fd, header, 0, WAL_HEADER, 0) < WAL_HEADER) return 0;
    const pageSize = header.readUInt32BE(8);
    if ((header.readUInt32BE(0) & ~1) !== WAL_MAGIC || pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return 0;
    return Math.floor((size - WAL_HEADER) / (pageSize + FRAME_HEADER));
  } finally {
    closeSync(fd);
  }
}

/**
 * The most frames any log in `folder` (a namespace's SQLite files: serve.mjs's `threadStorage`) has
 * room for: the furthest any of its objects' logs grew since each was last started.
 */
export function largestLog(folder) {
  return readdirSync(folder, { encoding: "utf8" })
    .filter((f) => f.endsWith("-wal"))
    .reduce((most, f) => Math.max(most, walFrames(path.join(folder, f))), 0);
}
