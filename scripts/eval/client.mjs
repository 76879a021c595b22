// @ts-check
/**
 * The eval runner's view of a weft: the typed client (`weft/client`) for the thread routes, and
 * the bfcl harness's client for creating threads, posting and reading a thread's events over its
 * WebSocket (one source for both). Refusals throw `WeftClientError` with weft's `code` and `status`.
 * @module
 */
import { WeftClient } from "weft/client";
import { createClient } from "../bfcl/client.mjs";

/**
 * @param {string} baseUrl
 * @param {string | null} token bearer token (an API key or a JWT), or null
 */
export function evalClient(baseUrl, token) {
  const base = baseUrl.replace(/\/+$/, "");
  const weft = new WeftClient({ url: base, ...(token ? { token } : {}) });
  return {
    ...createClient(base, /** @type {any} */ (token)),
    /** `GET /threads`: one page of the caller's threads, newest first. */
    listThreads: (/** @type {{ limit?: number, cursor?: string }} */ options) => weft.listThreads(options),
    /** `DELETE /threads/:id`. */
    deleteThread: (/** @type {string} */ threadId) => weft.deleteThread(threadId),
    /** `GET /threads/:id`. */
    getThread: (/** @type {string} */ threadId) => weft.getThread(threadId),
    /** Every message of a thread, oldest first, silent ones included. */
    async messages(/** @type {string} */ threadId) {
      const out = [];
      for await (const m of weft.messages(threadId)) out.push(m);
      return out;
    },
    /** `POST .../approve`, as the caller. */
    approve: (/** @type {string} */ threadId, /** @type {string} */ callId, /** @type {{ argsHash?: string }} */ options) => weft.approve(threadId, callId, options),
    /** `POST .../deny`, as the caller. */
    deny: (/** @type {string} */ threadId, /** @type {string} */ callId, /** @type {{ reason?: string }} */ options) => weft.deny(threadId, callId, options),
    /** `GET /threads/:id/usage`. */
    usage: (/** @type {string} */ threadId) => weft.getThreadUsage(threadId),
    /** Every call record of a thread. */
    async calls(/** @type {string} */ threadId) {
      const out = [];
      for await (const c of weft.calls(threadId)) out.push(c);
      return out;
    },
  };
}
