// @ts-check
/**
 * The eval runner's view of a weft: the thread routes it needs over HTTP, and a thread's events
 * over its WebSocket (the bfcl harness's client, one source for both). Every refusal throws an
 * `Error` whose message starts with the method, path and status, and carries `status` and `code`.
 * @module
 */
import { createClient } from "../bfcl/client.mjs";

/**
 * @param {string} baseUrl
 * @param {string | null} token bearer token (an API key or a JWT), or null
 */
export function evalClient(baseUrl, token) {
  const base = baseUrl.replace(/\/+$/, "");
  const inner = createClient(base, /** @type {any} */ (token));
  /** @param {string} path */
  async function get(path) {
    const res = await fetch(base + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const text = await res.text();
    if (!res.ok) {
      let code = "";
      try {
        code = JSON.parse(text)?.error?.code ?? "";
      } catch {}
      throw Object.assign(new Error(`GET ${path} -> ${res.status}${code ? ` ${code}` : ""}: ${text.slice(0, 300)}`), { status: res.status, code });
    }
    return JSON.parse(text);
  }
  const enc = encodeURIComponent;
  return {
    ...inner,
    get,
    /** `DELETE /threads/:id`. */
    async deleteThread(/** @type {string} */ threadId) {
      const res = await fetch(`${base}/threads/${enc(threadId)}`, { method: "DELETE", headers: token ? { authorization: `Bearer ${token}` } : {} });
      const text = await res.text();
      if (!res.ok) throw new Error(`DELETE /threads/${threadId} -> ${res.status}: ${text.slice(0, 300)}`);
    },
    /** `GET /threads/:id`; a refusal carries weft's code. */
    getThread: (/** @type {string} */ threadId) => get(`/threads/${enc(threadId)}`),
    /** Every message of a thread, oldest first, silent ones included. */
    /** @param {string} threadId @returns {Promise<any[]>} */
    async messages(threadId) {
      /** @type {any[]} */
      const out = [];
      for (let offset = 0; ; ) {
        const page = await get(`/threads/${enc(threadId)}/messages?limit=100&offset=${offset}&order=asc`);
        out.push(...page.messages);
        offset += page.messages.length;
        if (!page.hasMore || page.messages.length === 0) return out;
      }
    },
    /** Every call record of a thread. */
    calls: async (/** @type {string} */ threadId) => (await get(`/threads/${enc(threadId)}/calls`)).calls,
  };
}
