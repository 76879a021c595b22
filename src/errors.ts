/**
 * weft's one error class and its closed union of codes.
 *
 * HTTP status and retryability are looked up from the code, never parsed from message text,
 * so rewording a message never changes a status. Every error body on the wire is `{ error: { code, message, details? } }`.
 * @module
 */

/** Every error code weft raises, with its HTTP status and whether a retry may succeed. */
export const ERROR_CODES = {
  unknown_tool: { status: 404, retryable: false },
  invalid_tool_input: { status: 400, retryable: false },
  invalid_tool_output: { status: 500, retryable: false },
  tool_not_callable: { status: 400, retryable: false },
  invalid_continuation_token: { status: 400, retryable: false },
  session_not_found: { status: 404, retryable: false },
  session_busy: { status: 409, retryable: true },
  workspace_unavailable: { status: 500, retryable: true },
  invalid_config: { status: 500, retryable: false },
  capability_missing: { status: 500, retryable: false },
  tool_not_allowed: { status: 403, retryable: false },
  thread_not_found: { status: 404, retryable: false },
  thread_exists: { status: 409, retryable: false },
  call_not_found: { status: 404, retryable: false },
  call_not_waiting: { status: 409, retryable: false },
  approval_mismatch: { status: 409, retryable: false },
  agent_not_found: { status: 404, retryable: false },
  env_not_found: { status: 404, retryable: false },
  missing_variables: { status: 400, retryable: false },
  hook_failed: { status: 500, retryable: false },
  invalid_request: { status: 400, retryable: false },
  invalid_json: { status: 400, retryable: false },
  not_found: { status: 404, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  method_not_allowed: { status: 405, retryable: false },
  not_acceptable: { status: 406, retryable: false },
  upgrade_required: { status: 426, retryable: false },
  too_many_threads: { status: 429, retryable: false },
  /** A thread holds `WEFT_MAX_SOCKETS_PER_THREAD` open WebSocket subscriptions: one must close first. */
  too_many_sockets: { status: 429, retryable: true },
  unauthenticated: { status: 401, retryable: false },
  auth_not_configured: { status: 503, retryable: false },
  internal_error: { status: 500, retryable: true },
  thread_restarted: { status: 503, retryable: true },
  idempotency_key_reused: { status: 422, retryable: false },
  idempotency_key_in_use: { status: 409, retryable: true },
  /** A model's stream ended before its finish (closed or reset connection, malformed chunk), after its retries. */
  stream_cut: { status: 502, retryable: true },
  /** A model step passed its idle or overall deadline (`WEFT_MODEL_IDLE_MS`, `WEFT_MODEL_STEP_MS`), after its retries. */
  model_timeout: { status: 504, retryable: true },
  /** A user message carries a part (an image, a file) the model's provider cannot take (a failed turn's `errorCode`). */
  unsupported_content: { status: 422, retryable: false },
  /** A schedule's cron, zone, interval, time or target is bad (`details.path` names the field; src/schedules/define.ts). */
  invalid_schedule: { status: 400, retryable: false },
  /** No schedule with this id on the thread. */
  schedule_not_found: { status: 404, retryable: false },
  /** No background run with this id in the thread (`state.runs`; src/background/). */
  run_not_found: { status: 404, retryable: false },
  /** The thread, or its owner over all their threads, holds the limit of active schedules (`details.limit`, `details.scope` `thread` or `user`). */
  too_many_schedules: { status: 409, retryable: false },
  /** `POST /mcp` from a Host or browser Origin it does not serve (DNS rebinding; `WEFT_MCP_HOSTS`, `WEFT_CORS_ORIGINS`). */
  origin_not_allowed: { status: 403, retryable: false },
  /** A remote MCP server could not be reached (network, DNS, TLS, a 5xx, a hang past its deadline). */
  mcp_unreachable: { status: 502, retryable: true },
  /** A remote MCP server answered something that is not MCP (not JSON, a bad shape, too large, too many tools). */
  mcp_protocol_error: { status: 502, retryable: false },
  /** A remote MCP server asks for credentials weft does not have for it (401 or 403). */
  mcp_auth_required: { status: 401, retryable: false },
  /** weft refused to follow a remote MCP server elsewhere (a redirect or an endpoint on another origin). */
  mcp_refused: { status: 502, retryable: false },
  /** An OAuth authorization of an MCP server was completed with the credential of another weft user than the one who started it. */
  mcp_wrong_user: { status: 403, retryable: false },
  /** A remote MCP tool's name collides with a local tool, prompt or agent, or with another remote tool. */
  mcp_name_collision: { status: 500, retryable: false },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

/** The closed union of weft error codes. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The JSON body of every weft error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/**
 * An error with a code from `ERROR_CODES` (src/errors.ts); `status` and `retryable` derive from the code.
 *
 * @example
 * throw new WeftError("invalid_tool_input", "age: expected number, received string", { path: ["age"] })
 */
export class WeftError extends Error {
  /** Always `WeftError`. */
  override readonly name = "WeftError";
  /** What went wrong, from the closed union `ERROR_CODES`; the HTTP status and retryability follow from it. */
  readonly code: ErrorCode;
  /** Structured details, such as the offending `path` (an array of keys and indexes) or the `limit` in force. */
  readonly details?: Record<string, unknown>;

  /**
   * @param code the error's code (`ERROR_CODES`)
   * @param message what happened, for people; starts with the offending path when there is one
   * @param details structured details sent in the error body's `details`
   * @param options the error's `cause`
   */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  /** HTTP status for this error's code. */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  /** Whether repeating the same request may succeed. */
  get retryable(): boolean {
    return ERROR_CODES[this.code].retryable;
  }

  /** The wire body `{ error: { code, message, details? } }`. */
  toBody(): ErrorBody {
    const error: ErrorBody["error"] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }

  /** The wire body as a JSON response with the code's status; `headers` are added to it. */
  toResponse(headers?: HeadersInit): Response {
    return Response.json(this.toBody(), { status: this.status, ...(headers ? { headers } : {}) });
  }
}

/** True for a {@link WeftError}, including one that crossed an RPC boundary as a plain Error. */
export function isWeftError(value: unknown): value is WeftError {
  return value instanceof WeftError;
}

/**
 * Turns any thrown value into a non-empty message (docs/guarantees.md: every failure is a result): never `""`, `{}` or
 * `[object Object]`.
 */
export function errorMessage(thrown: unknown): string {
  if (thrown instanceof Error) {
    if (thrown.message) return thrown.message;
    return thrown.name && thrown.name !== "Error" ? thrown.name : "Error thrown with an empty message";
  }
  if (typeof thrown === "string") return thrown.length > 0 ? thrown : "Empty string thrown";
  if (thrown === undefined) return "undefined thrown";
  if (thrown === null) return "null thrown";
  if (typeof thrown === "object") {
    const message = (thrown as { message?: unknown }).message;
    if (typeof message === "string" && message.length > 0) return message;
    try {
      const json = JSON.stringify(thrown);
      if (json && json !== "{}") return `Non-error value thrown: ${json}`;
    } catch {
      // Circular or BigInt-bearing values fall through to the constructor name.
    }
    const ctor = (thrown as object).constructor?.name;
    return `Non-error value thrown: ${ctor && ctor !== "Object" ? ctor : "object"}`;
  }
  return `Non-error value thrown: ${String(thrown)}`;
}

/** The stack of a thrown Error, when it has one. */
export function errorStack(thrown: unknown): string | undefined {
  return thrown instanceof Error && typeof thrown.stack === "string" ? thrown.stack : undefined;
}

/**
 * What a request answers that finds no thread: none was made here, it is another user's, or it was
 * deleted (or is being deleted) before the request began.
 */
export function noSuchThread(): WeftError {
  return new WeftError("thread_not_found", "no such thread");
}

/** Characters of a client's value (a name, an id, a path) an error answer repeats; the rest is cut. */
export const MAX_ECHOED_CHARS = 80;

/**
 * A client's value as an error answer repeats it: its first {@link MAX_ECHOED_CHARS} characters,
 * then `...` when it was longer, so a request cannot make its answer (or a log line of it) as
 * large as the request itself. For a value in `details`; {@link quotedValue} for a message.
 */
export function echoedValue(value: string): string {
  return value.length > MAX_ECHOED_CHARS ? `${value.slice(0, MAX_ECHOED_CHARS)}...` : value;
}

/** {@link echoedValue} JSON-quoted, as an error message names a client's value. */
export function quotedValue(value: string): string {
  return JSON.stringify(echoedValue(value));
}
