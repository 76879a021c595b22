/**
 * A small client for weft's thread API as a remote caller sees it: JSON over HTTP and the
 * thread's event stream over a real WebSocket (Node 22's global `WebSocket`).
 * @module
 */

/**
 * @typedef {{ seq: number, type: string, data: any, at: string }} Frame one event frame
 */

/**
 * Creates a client bound to one weft base URL.
 * @param {string} baseUrl e.g. `http://127.0.0.1:8787`
 */
export function createClient(baseUrl, token = null) {
  const base = baseUrl.replace(/\/+$/, "");
  /** @type {Record<string, string>} */
  const auth = token ? { authorization: `Bearer ${token}` } : {};

  /** Sends a JSON request; throws on a non-2xx status with the body text in the message. */
  async function request(method, path, body) {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 500)}`);
    try {
      return text === "" ? {} : JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} -> ${res.status}: body is not JSON: ${text.slice(0, 200)}`);
    }
  }

  return {
    /** `POST /threads`. @returns {Promise<{ threadId: string }>} */
    createThread: (body) => request("POST", "/threads", body),
    /** `POST /threads/:id/messages`. */
    postMessage: (threadId, body) => request("POST", `/threads/${encodeURIComponent(threadId)}/messages`, body),
    /** `GET /threads/:id/calls`. @returns {Promise<{ calls: any[] }>} */
    listCalls: (threadId) => request("GET", `/threads/${encodeURIComponent(threadId)}/calls`),
    /** `GET /threads/:id`: status, the tools the model is offered and the unavailable ones. */
    getThread: (threadId) => request("GET", `/threads/${encodeURIComponent(threadId)}`),
    /** Opens `GET /threads/:id/ws?since=<seq>` and resolves once the socket is open. */
    openEvents: (threadId, since = 0) =>
      openEvents(`${base.replace(/^http/, "ws")}/threads/${encodeURIComponent(threadId)}/ws?since=${since}${token ? `&access_token=${encodeURIComponent(token)}` : ""}`),
  };
}

/**
 * Subscribes to a thread's events. Frames are kept in arrival order; `waitFor` resolves with the
 * first frame (already received or future) that matches, or rejects after `timeoutMs`, or when
 * the socket closes first.
 * @param {string} url
 */
function openEvents(url) {
  /** @type {Frame[]} */
  const frames = [];
  /** @type {Set<() => void>} */
  const listeners = new Set();
  /** @type {string[]} */
  const problems = [];
  let closed = false;
  const ws = new WebSocket(url);
  const notify = () => listeners.forEach((l) => l());

  ws.addEventListener("message", (event) => {
    try {
      frames.push(JSON.parse(typeof event.data === "string" ? event.data : Buffer.from(event.data).toString("utf8")));
    } catch {
      problems.push(`frame is not JSON: ${String(event.data).slice(0, 200)}`);
    }
    notify();
  });
  ws.addEventListener("close", () => {
    closed = true;
    notify();
  });

  const opened = new Promise((resolve, reject) => {
    ws.addEventListener("open", () => resolve(undefined), { once: true });
    ws.addEventListener("error", () => reject(new Error(`WebSocket ${url} failed to open`)), { once: true });
  });

  const stream = {
    frames,
    problems,
    /**
     * @param {(f: Frame) => boolean} match
     * @param {number} timeoutMs
     * @param {number} [from] index into `frames` to start looking from
     * @returns {Promise<Frame>}
     */
    waitFor(match, timeoutMs, from = 0) {
      return new Promise((resolve, reject) => {
        let scanned = from;
        const check = () => {
          for (; scanned < frames.length; scanned++) {
            if (match(frames[scanned])) return done(() => resolve(frames[scanned]));
          }
          if (closed) done(() => reject(new Error(`socket closed; last frames: ${lastTypes()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`timed out after ${timeoutMs}ms; last frames: ${lastTypes()}`))), timeoutMs);
        const done = (settle) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    /** Closes the socket (normal closure). */
    close() {
      if (!closed) ws.close(1000, "done");
    },
  };
  const lastTypes = () => frames.slice(-5).map((f) => `${f.seq}:${f.type}`).join(", ") || "none";
  return opened.then(() => stream);
}
