/**
 * weft's request limits: one table of names, Worker vars and defaults, read by the HTTP layer and
 * the thread alike. Each is set by its var in wrangler.toml (`[vars]`); the README's table lists
 * the same rows.
 * @module
 */

/** Every limit: its Worker var, default and unit. */
export const LIMITS = {
  bodyBytes: { env: "WEFT_MAX_BODY_BYTES", default: 8 * 1024 * 1024, unit: "bytes", what: "request body" },
  messageBytes: { env: "WEFT_MAX_MESSAGE_BYTES", default: 1024 * 1024, unit: "bytes", what: "message content" },
  jsonDepth: { env: "WEFT_MAX_JSON_DEPTH", default: 64, unit: "levels", what: "nesting of a request body's JSON" },
  toolInputBytes: { env: "WEFT_MAX_TOOL_INPUT_BYTES", default: 1024 * 1024, unit: "bytes", what: "tool input" },
  wsFrameBytes: { env: "WEFT_MAX_WS_FRAME_BYTES", default: 64 * 1024, unit: "bytes", what: "WebSocket frame from a client" },
  wsMessagesPerSecond: { env: "WEFT_MAX_WS_MESSAGES_PER_SECOND", default: 20, unit: "messages per second", what: "WebSocket messages from one connection" },
  attachmentsPerCall: { env: "WEFT_MAX_ATTACHMENTS_PER_CALL", default: 16, unit: "attachments", what: "attachments of one tool result" },
  threadsPerUser: { env: "WEFT_MAX_THREADS_PER_USER", default: 1000, unit: "threads", what: "threads per user" },
} as const;

/** A limit's name. */
export type LimitName = keyof typeof LIMITS;

/** The limit in force: the var when it is a positive integer, else the default. */
export function limitOf(env: Readonly<Record<string, unknown>>, name: LimitName): number {
  const raw = Number(env[LIMITS[name].env]);
  return Number.isSafeInteger(raw) && raw > 0 ? raw : LIMITS[name].default;
}
