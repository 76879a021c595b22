/**
 * weft's request limits: one table of names, Worker vars and defaults, read by the HTTP layer and
 * the thread alike. Each is set by its var in wrangler.toml (`[vars]`); docs/limits.md's table lists
 * the same rows.
 * @module
 */
import { byteLength, fitsBytes } from "./bytes.js";
import { WeftError } from "./errors.js";

/** Every limit: its Worker var, default and unit. */
export const LIMITS = {
  bodyBytes: { env: "WEFT_MAX_BODY_BYTES", default: 8 * 1024 * 1024, unit: "bytes", what: "request body" },
  messageBytes: { env: "WEFT_MAX_MESSAGE_BYTES", default: 1024 * 1024, max: 1024 * 1024, unit: "bytes", what: "message content as stored (its JSON text, escapes counted)" },
  jsonDepth: { env: "WEFT_MAX_JSON_DEPTH", default: 64, unit: "levels", what: "nesting of a request body's JSON" },
  toolInputBytes: { env: "WEFT_MAX_TOOL_INPUT_BYTES", default: 1024 * 1024, max: 1024 * 1024, unit: "bytes", what: "tool input as stored (its JSON text)" },
  wsFrameBytes: { env: "WEFT_MAX_WS_FRAME_BYTES", default: 64 * 1024, unit: "bytes", what: "WebSocket frame from a client" },
  wsMessagesPerSecond: { env: "WEFT_MAX_WS_MESSAGES_PER_SECOND", default: 20, unit: "messages per second", what: "WebSocket messages from one connection" },
  wsCharsPerConnection: { env: "WEFT_MAX_WS_CHARS_PER_CONNECTION", default: 16 * 1024 * 1024, unit: "characters", what: "frame text sent on one WebSocket connection, replayed and live together" },
  socketsPerThread: { env: "WEFT_MAX_SOCKETS_PER_THREAD", default: 1000, unit: "sockets", what: "WebSocket subscriptions open on one thread (each event is sent to every one)" },
  attachmentsPerCall: { env: "WEFT_MAX_ATTACHMENTS_PER_CALL", default: 16, unit: "attachments", what: "attachments of one tool result" },
  threadsPerUser: { env: "WEFT_MAX_THREADS_PER_USER", default: 1000, unit: "threads", what: "threads per user" },
  schedulesPerUser: { env: "WEFT_MAX_SCHEDULES_PER_USER", default: 10_000, unit: "schedules", what: "active schedules per user, over all their threads" },
} as const;

/**
 * The refusal of a schedule past its owner's limit (`WEFT_MAX_SCHEDULES_PER_USER`): the user's
 * threads hold `have` active schedules together, the limit is `max`.
 */
export function tooManySchedules(have: number, max: number): WeftError {
  return new WeftError("too_many_schedules", `this user has ${have} active schedules over their threads; the limit is ${max} schedules per user (WEFT_MAX_SCHEDULES_PER_USER); cancel one first`, {
    limit: max,
    scope: "user",
    path: [],
  });
}

/**
 * Bytes of JSON one model step may store: its text and every call's arguments together, as JSON
 * text (escapes counted). A step becomes one message row and its events, and Cloudflare refuses a
 * SQLite row over 2 MB, so the step keeps room for the rest of the row.
 */
export const MAX_STEP_BYTES = 1536 * 1024;

/** Bytes of JSON a step's text may take of {@link MAX_STEP_BYTES}; the rest is left for calls. */
export const MAX_STEP_TEXT_BYTES = 1024 * 1024;

/** Bytes of one value weft stores whole in one row (an env value, a thread's arguments). */
export const MAX_STORED_VALUE_BYTES = 1024 * 1024;

/**
 * Bytes of all of a user's account env values together: every thread that reads them takes them
 * whole in one RPC answer (32 MiB at most on Cloudflare), and a change reaches each one so. Each
 * of the user's threads redacts them: its redactors keep one copy of each secret and share their
 * search by isolate (src/secrets/automaton-pool.ts); 1000 secrets of 8000 characters cost a
 * redactor 0.1 MB of heap besides, and 50 to 180 ms to make (Node 22; docs/env-and-secrets.md "Secrets and redaction").
 */
export const MAX_ACCOUNT_ENV_BYTES = 8 * 1024 * 1024;

/** Env values one user's account may hold (for the same reason as {@link MAX_ACCOUNT_ENV_BYTES}). */
export const MAX_ACCOUNT_ENV_VALUES = 1000;

/**
 * Env values a thread may be made with (`POST /threads` `env`), as many as an account may hold:
 * each secret among them is a form the thread's redaction looks for in everything it shows.
 */
export const MAX_THREAD_ENV_VALUES = MAX_ACCOUNT_ENV_VALUES;

/** Longest name of an env value, in characters (a thread's `env`, an account's `PUT /account/env/:name`): a name is stored in its value's row. */
export const MAX_ENV_NAME_CHARS = 128;

/**
 * How long (ms) a user's account remembers a removed thread (its id and `createdAt`): one day, far
 * past any notice the thread sent before its removal, which would otherwise list a deleted thread
 * or count its schedules for good (`removeThread` in src/account/api.ts).
 */
export const REMOVED_KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * Refuses a value too large to store whole in one row.
 * @throws WeftError `payload_too_large` naming `path` and the limit when `text` is over `max` bytes.
 */
export function checkStoredBytes(text: string, path: (string | number)[], max = MAX_STORED_VALUE_BYTES): void {
  if (fitsBytes(text, max)) return;
  throw new WeftError("payload_too_large", `${path.join(".")}: ${byteLength(text)} bytes, over the ${max}-byte limit of one stored value`, { path, limit: max });
}

/**
 * Approval decisions and client tool outputs one `POST /threads/:id/chat` may carry together
 * (128): each costs the thread one or two Durable Object calls, and a page's last assistant
 * message answers one step's calls, far fewer.
 */
export const MAX_CHAT_ANSWERS = 128;

/**
 * Page sizes of weft's lists: each list's default and largest `limit` (`?limit=` of `GET /threads`,
 * `GET /threads/:id/messages`, `GET /threads/:id/calls`, `GET /threads/:id/files` and `GET /account/usage`'s groups, and
 * `getMessages({ limit })`; `GET /account/waiting`'s counts threads, each one Durable Object asked). One rule for all of them: a
 * `limit` is a whole number from 1 to the list's largest; anything else is refused with
 * `invalid_request`, never quietly shrunk to fit.
 */
export const PAGE_SIZES = {
  threads: { default: 50, max: 200 },
  messages: { default: 100, max: 1000 },
  schedules: { default: 100, max: 1000 },
  calls: { default: 1000, max: 1000 },
  files: { default: 1000, max: 1000 },
  usageGroups: { default: 1000, max: 1000 },
  waiting: { default: 50, max: 50 },
} as const;

/**
 * Most bytes of JSON one page of messages or calls holds (4 MiB), unless its first item alone is
 * larger: a page goes whole in one RPC answer (32 MiB at most on Cloudflare) and is built in the
 * thread's memory (128 MB), and one stored message or call may hold up to 2 MB.
 */
export const PAGE_BYTES = 4 * 1024 * 1024;

/**
 * The first of `rows` as `make` turns them: at most `limit`, and at most {@link PAGE_BYTES} of
 * JSON together (one at least). Rows are read one at a time, so those past the page are never
 * read. `more` says whether a row was left out (past the count or the bytes).
 */
export function pageWithin<R, T>(rows: Iterable<R>, limit: number, make: (row: R) => T): { items: T[]; more: boolean } {
  const items: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (items.length >= limit) return { items, more: true };
    const item = make(row);
    const size = byteLength(JSON.stringify(item));
    if (items.length > 0 && bytes + size > PAGE_BYTES) return { items, more: true };
    items.push(item);
    bytes += size;
  }
  return { items, more: false };
}

/** What a `cursor` that no page handed out is told (after `cursor: `). */
export const NOT_A_CURSOR = "not a cursor from a previous page";

/** A paged list's name. */
export type PagedList = keyof typeof PAGE_SIZES;

/** What a list's `limit` must be, as refusals say it (after `limit: `). */
export function pageSizeRule(list: PagedList): string {
  const { default: fallback, max } = PAGE_SIZES[list];
  return `expected a page size from 1 to ${max} (default ${fallback})`;
}

/** Whether `limit` is a page size the list accepts ({@link PAGE_SIZES}). */
export function isPageSize(list: PagedList, limit: number): boolean {
  return Number.isInteger(limit) && limit >= 1 && limit <= PAGE_SIZES[list].max;
}

/**
 * The page size in force: the list's default when `limit` is undefined.
 * @throws WeftError `invalid_request` naming `limit` when it is not a whole number from 1 to the list's largest ({@link PAGE_SIZES}).
 */
export function pageSize(list: PagedList, limit: number | undefined): number {
  if (limit === undefined) return PAGE_SIZES[list].default;
  if (isPageSize(list, limit)) return limit;
  throw new WeftError("invalid_request", `limit: ${pageSizeRule(list)}, got ${limit}`, { path: ["limit"] });
}

/**
 * `value` when it is undefined or a whole number (0 or more): a page's offset, a cursor, a depth.
 * @throws WeftError `invalid_request` naming `name` otherwise.
 */
export function wholeNumberOption<N extends number | undefined>(name: string, value: N): N {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 0)) return value;
  throw new WeftError("invalid_request", `${name}: expected a whole number (0 or more), got ${value}`, { path: [name] });
}

/**
 * The offset in force: 0 when undefined.
 * @throws WeftError `invalid_request` naming `offset` when it is not a whole number (0 or more).
 */
export function pageOffset(offset: number | undefined): number {
  return wholeNumberOption("offset", offset) ?? 0;
}

/** A limit's name. */
export type LimitName = keyof typeof LIMITS;

/**
 * The limit in force: the var when it is a positive integer, else the default; never above the
 * row's `max` (what one stored row can hold on Cloudflare).
 */
export function limitOf(env: Readonly<Record<string, unknown>>, name: LimitName): number {
  const row: { default: number; max?: number } = LIMITS[name];
  const raw = Number(env[LIMITS[name].env]);
  return Math.min(Number.isSafeInteger(raw) && raw > 0 ? raw : row.default, row.max ?? Number.MAX_SAFE_INTEGER);
}
