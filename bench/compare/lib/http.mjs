// @ts-check
/**
 * The harness's HTTP client: node:http over keep-alive sockets (one pool per target, at most 16
 * sockets), so client overhead is small and the same for every target. Every request carries the
 * bench's API key (`Authorization: Bearer`), which each target checks as a deployment would.
 * @module
 */
import { createHash } from "node:crypto";
import http from "node:http";

/** The API key every request sends; the targets get its SHA-256 ({@link BENCH_KEY_SHA256}). */
export const BENCH_KEY = "weft-bench-key-0123456789abcdef";
/** SHA-256 (hex) of {@link BENCH_KEY}: weft's `WEFT_API_KEYS` entry, the baselines' `BENCH_API_KEY_SHA256`. */
export const BENCH_KEY_SHA256 = createHash("sha256").update(BENCH_KEY).digest("hex");
const AUTH = `Bearer ${BENCH_KEY}`;

const agents = new Map();

function agentFor(base) {
  let agent = agents.get(base);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    agents.set(base, agent);
  }
  return agent;
}

/**
 * Requests sent again because the kept-alive socket they went out on had been closed by the
 * target while idle (the run prints the count). Node's documented keep-alive race: a request
 * written to a pooled socket as the server closes it fails with ECONNRESET before any answer, and
 * `req.reusedSocket` says so; such a request is re-sent once on a fresh socket. Any other failure,
 * or a second one, still stops the run.
 */
export const resent = { count: 0 };

/**
 * Sends a JSON request and resolves to the parsed JSON answer.
 * @throws Error with the status and body when the answer is not 2xx.
 */
export function request(base, method, pathname, body) {
  return send(base, method, pathname, body, true);
}

/** `request`, re-sending once (`again`) after the keep-alive race described at {@link resent}. */
function send(base, method, pathname, body, again) {
  const url = new URL(pathname, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent: agentFor(base),
        headers: payload === undefined ? { authorization: AUTH } : { authorization: AUTH, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${method} ${pathname}: ${res.statusCode} ${text.slice(0, 300)}`));
          try {
            resolve(text ? JSON.parse(text) : null);
          } catch {
            reject(new Error(`${method} ${pathname}: not JSON: ${text.slice(0, 200)}`));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", (error) => {
      if (!(again && req.reusedSocket && /** @type {NodeJS.ErrnoException} */ (error).code === "ECONNRESET")) return reject(error);
      resent.count++;
      resolve(send(base, method, pathname, body, false));
    });
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Closes every pooled socket (end of run). */
export function closeAll() {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}
