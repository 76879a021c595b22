/**
 * The Worker's JSON answers, for the app and for the direct-call lane alike: every error mapped
 * to `{ error: { code, message, details? } }` with the status its code implies, and every JSON
 * body cleaned of the Worker's secrets (threads clean their own answers of theirs).
 * @module
 */
import { HTTPException } from "hono/http-exception";
import { type ErrorBody, WeftError } from "../errors.js";
import { perEnv } from "../per-env.js";
import type { WeftEnv } from "../thread/durable.js";
import { Redactor, workerSecrets } from "../thread/redact.js";

/**
 * The redactor of the Worker's answers: its secrets that thread code can read, made once per env.
 * weft's own credentials are left out, as a thread's redactor leaves them out: no code puts them
 * in an answer, and redacting them would make every answer that echoes a user's text (an env
 * value, a message) an oracle for guesses of them.
 */
export const workerRedactor = perEnv((env: WeftEnv) => new Redactor(workerSecrets(env, { credentials: false })));

/** The redactor of the Worker's logs: every secret of the Worker, weft's credentials included. */
export const workerLogRedactor = perEnv((env: WeftEnv) => new Redactor(workerSecrets(env)));

/** `value` as JSON text without any of the Worker's secrets; `undefined` makes an empty body, as `c.json` would. */
export function cleanJson(env: WeftEnv, value: unknown): string {
  return cleanText(env, (JSON.stringify(value) as string | undefined) ?? "");
}

/** JSON text without any of the Worker's secrets (in their JSON-escaped form too). */
export function cleanText(env: WeftEnv, text: string): string {
  const r = workerRedactor(env);
  return r.secrets.length === 0 ? text : r.json(text);
}

/** True for the error a stub call gets when its Durable Object reset mid-request (a restart, a deploy). */
function threadReset(err: unknown): boolean {
  const e = err as { durableObjectReset?: unknown; retryable?: unknown; remote?: unknown } | null;
  return e !== null && typeof e === "object" && (e.durableObjectReset === true || (e.retryable === true && e.remote !== true));
}

/** An error answer: status, body and the headers it needs. */
export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/**
 * The answer to a request that threw `err`: a WeftError answers with its code's status; Hono's
 * 400 (a body that is not JSON) is `invalid_json`; a thread reset mid-request is
 * `thread_restarted`; anything else is logged (without secrets) and answers 500 `internal_error`.
 * A 401 names the scheme in `WWW-Authenticate` (RFC 6750).
 */
export function errorAnswer(err: unknown, env: WeftEnv): ErrorAnswer {
  const error =
    err instanceof WeftError
      ? err
      : err instanceof HTTPException && err.status === 400
        ? new WeftError("invalid_json", `request body is not valid JSON: ${err.message}`)
        : threadReset(err)
          ? new WeftError(
              "thread_restarted",
              "the thread restarted while it handled this request, which may not have taken effect (work that was durable finishes by itself); read the thread, or retry with the same Idempotency-Key, which never acts twice",
            )
          : null;
  if (!error) {
    console.error("weft: unhandled error", workerLogRedactor(env).value(err));
    return { status: 500, body: new WeftError("internal_error", "internal error").toBody(), headers: {} };
  }
  const headers: Record<string, string> =
    error.code === "unauthenticated" ? { "www-authenticate": `Bearer error="invalid_token", error_description=${JSON.stringify(error.message)}` } : {};
  return { status: error.status, body: error.toBody(), headers };
}
