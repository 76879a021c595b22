/**
 * One page of a thread's schedules, bounded by count and by JSON bytes.
 * @module
 */
import { byteLength } from "../bytes.js";
import { WeftError } from "../errors.js";
import { pageSize } from "../limits.js";
import { type ScheduleInfo, type SchedulePage, type SchedulePageOptions, infoOf } from "./info.js";
import type { ScheduleStore } from "./store.js";

/** The most JSON bytes one page of schedules holds (1 MiB), unless its one schedule is larger. */
export const SCHEDULE_PAGE_BYTES = 1024 * 1024;

/**
 * A page of the schedules in `store`, in creation order: at most `limit` (`PAGE_SIZES.schedules`)
 * and {@link SCHEDULE_PAGE_BYTES} of JSON (one schedule at least), after `cursor` (a page's `nextCursor`).
 * @throws WeftError `invalid_request` (400, path `["limit"]` or `["cursor"]`).
 */
export function schedulePage(store: ScheduleStore, options: SchedulePageOptions = {}): SchedulePage {
  const limit = pageSize("schedules", options.limit);
  const schedules: ScheduleInfo[] = [];
  let bytes = 0;
  let more = false;
  const known = store.each(options.cursor, (row) => {
    const info = infoOf(row);
    const size = byteLength(JSON.stringify(info));
    if (schedules.length >= limit || (schedules.length > 0 && bytes + size > SCHEDULE_PAGE_BYTES)) return !(more = true);
    schedules.push(info);
    bytes += size;
    return true;
  });
  if (!known) throw new WeftError("invalid_request", "cursor: not a nextCursor of this thread's schedules", { path: ["cursor"] });
  return { schedules, nextCursor: more ? schedules.at(-1)!.scheduleId : null };
}
