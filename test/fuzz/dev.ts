/**
 * The fuzz target over a real `wrangler dev` of the test worker: HTTP with Node's `fetch`, event
 * replays over Node's `WebSocket`, crashes and alarms through the test worker's `/__test/` routes
 * (test/worker.ts), which call `ctx.abort()` and `alarm()` inside the Durable Object.
 * @module
 */
import type { FuzzFrame, FuzzTarget } from "./target.js";

/** The tester's API key (test/wrangler.toml stores its hash). */
const TESTER_KEY = "test-key-tester";

/** A target over the dev server at `base` (`http://127.0.0.1:<port>`). */
export function devTarget(base: string): FuzzTarget {
  const seam = async (id: string, what: "crash" | "alarm" | "idle") => {
    const res = await fetch(`${base}/__test/threads/${id}/${what}`, { method: "POST" });
    await res.text();
    if (what !== "crash" && !res.ok && res.status !== 500) throw new Error(`${what} ${id}: ${res.status}`);
  };
  return {
    request(path, init, as) {
      const headers = new Headers(init.headers);
      if (as !== null && !headers.has("authorization")) headers.set("authorization", `Bearer ${TESTER_KEY}`);
      return fetch(base + path, { ...init, headers, redirect: "manual" });
    },
    crash: (id) => seam(id, "crash"),
    alarm: (id) => seam(id, "alarm").catch(() => undefined),
    waitIdle: (id) => seam(id, "idle"),
    async events(id, since = 0) {
      const info = await fetch(`${base}/threads/${id}`, { headers: { authorization: `Bearer ${TESTER_KEY}` } });
      const last = ((await info.json()) as { lastSeq?: number }).lastSeq ?? 0;
      if (last <= since) return [];
      const ws = new WebSocket(`${base.replace(/^http/, "ws")}/threads/${id}/ws?since=${since}&access_token=${TESTER_KEY}`);
      const frames: FuzzFrame[] = [];
      return new Promise<FuzzFrame[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          ws.close();
          reject(new Error(`replay of ${id} from ${since} timed out with ${frames.length} frames`));
        }, 15_000);
        ws.addEventListener("message", (e) => {
          frames.push(JSON.parse(String(e.data)) as FuzzFrame);
          if (frames.at(-1)!.seq >= last) {
            clearTimeout(timer);
            ws.close(1000, "done");
            resolve(frames);
          }
        });
        ws.addEventListener("error", () => {
          clearTimeout(timer);
          reject(new Error(`socket to ${id} failed`));
        });
      });
    },
  };
}
