/**
 * The Worker's JSON answers, for the app and for the direct-call lane alike: every error mapped
 * to `{ error: { code, message, details? } }` with the status its code implies. Answers are cleaned
 * of secrets by the threads they come from, not here (see {@link answerJson}).
 * @module
 */
import { HTTPException } from "hono/http-exception";
import { type ErrorBody, WeftError } from "../errors.js";
import { perEnv } from "../per-env.js";
import type { WeftEnv } from "../thread/durable.js";
import { Redactor, workerSecrets } from "../secrets/redact.js";
import { log } from "../log.js";
import { MISSING_TOKEN } from "./auth.js";

/** The redactor of the Worker's logs: every secret of the Worker, weft's credentials included. */
export const workerLogRedactor = perEnv((env: WeftEnv) => new Redactor(workerSecrets(env)));

/**
 * `value` as the JSON text of an answer (`undefined` makes an empty body, as `c.json` would).
 *
 * The Worker's answers are not redacted by the Worker (docs/env-and-secrets.md "Secrets and redaction": nothing a user
 * sees may depend on whether text matches a secret the user could not already read). What a
 * thread answers was cleaned by that thread, of the secrets its code received (src/secrets/thread-secrets.ts); the
 * Worker itself puts no env value in an answer. Any secret the Worker looked for here would be
 * one no thread handed out, and every answer that echoes a user's text (a message, an env value,
 * an error naming an input) would confirm a user's guess of it.
 */
export function answerJson(value: unknown): string {
  return (JSON.stringify(value) as string | undefined) ?? "";
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
    log("error", "weft: unhandled error", workerLogRedactor(env).value(err));
    return { status: 500, body: new WeftError("internal_error", "internal error").toBody(), headers: {} };
  }
  // A request with no credential is only told a token is wanted (RFC 6750 section 3.1); a refused one why.
  const challenge = error.message === MISSING_TOKEN ? "Bearer" : `Bearer error="invalid_token", error_description=${JSON.stringify(error.message)}`;
  const headers: Record<string, string> = error.code === "unauthenticated" ? { "www-authenticate": challenge } : {};
  return { status: error.status, body: error.toBody(), headers };
}
