// @ts-check
/**
 * Where each target's SQLite write-ahead logs stand. Local workerd keeps a Durable Object's SQLite
 * database in WAL mode and fsyncs the log at every commit. Until a log first reaches SQLite's
 * automatic checkpoint (1,000 frames, about 4 MB), every commit appends to the file, and on this
 * machine's ext4 each such fsync also commits the file system's journal: bare's CPU per write call
 * on 100 threads was about 550 µs then and 290-390 µs once its logs were past it. Afterwards a log is
 * rewritten from its start and checkpointed every 1,000 frames. A target writing more pages per
 * call leaves that first phase sooner, so steps timed at the same moment of a run compared targets
 * in different phases; {@link pastFirstCheckpoint} brings every target's threads to the same one.
 * @module
 */
import { closeSync, openSync, readSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** SQLite's default `wal_autocheckpoint`: a commit that leaves the log at this many frames or more checkpoints it. */
export const AUTOCHECKPOINT_FRAMES = 1000;
/** A WAL file's header, and each frame's header before its page (sqlite.org/fileformat.html, "The WAL File Format"). */
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** Frames a WAL file has room for: its size over the page size in its header (bytes 8-11, big-endian). */
function walFrames(file) {
  const size = statSync(file).size;
  if (size < WAL_HEADER) return 0;
  const header = Buffer.alloc(WAL_HEADER);
  const fd = openSync(file, "r");
  try {
    readSync(fd, header, 0, WAL_HEADER, 0);
  } finally {
    closeSync(fd);
  }
  return Math.floor((size - WAL_HEADER) / (header.readUInt32BE(8) + FRAME_HEADER));
}

/** Every `-wal` file under `dir`. */
function walFiles(dir) {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith("-wal"))
    .map((f) => path.join(dir, f));
}

/** How many of the databases under `disk` (a target's storage folder) have had a log of 1,000 frames, so were checkpointed at least once. */
export function checkpointedLogs(disk) {
  return walFiles(disk).filter((f) => walFrames(f) >= AUTOCHECKPOINT_FRAMES).length;
}

/**
 * Runs `drive` (a burst of calls over `threads` thread ids) until at least `threads` databases under
 * `disk` were checkpointed: with calls spread evenly, every thread's log is then past its first
 * checkpoint. Throws after `limitMs` without getting there. Returns the calls made, in ms and bursts.
 * @param {string} disk
 * @param {number} threads
 * @param {() => Promise<unknown>} drive
 */
export async function pastFirstCheckpoint(disk, threads, drive, limitMs = 600_000) {
  const start = performance.now();
  let bursts = 0;
  while (checkpointedLogs(disk) < threads) {
    if (performance.now() - start > limitMs) throw new Error(`${disk}: ${checkpointedLogs(disk)} of ${threads} logs past their first checkpoint after ${limitMs / 1000} s`);
    await drive();
    bursts++;
  }
  return { ms: performance.now() - start, bursts };
}
