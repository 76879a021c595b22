/**
 * What the fuzz suites drive: a running weft, either the test worker inside workerd
 * (test/fuzz/workerd.ts) or a real `wrangler dev` over HTTP and WebSocket (test/fuzz/dev.ts). The
 * route and interleaving fuzz are written once against this interface.
 * @module
 */

declare module "vitest" {
  interface ProvidedContext {
    /** `full` under `npm run fuzz`; npm test runs the short versions. */
    fuzzScale?: "short" | "full";
    /** Replays a run: the seed it printed. */
    fuzzSeed?: number;
  }
}

/** One event frame as the WebSocket sends it. */
export interface FuzzFrame {
  seq: number;
  type: string;
  data: unknown;
}

/** A running weft the fuzz can reach. */
export interface FuzzTarget {
  /** Sends a request as `as` (an API-key user), with no credentials (null), or with the given Authorization. */
  request(path: string, init: RequestInit, as: "tester" | null): Promise<Response>;
  /** Restarts the thread's Durable Object mid-whatever (`ctx.abort()`). */
  crash(threadId: string): Promise<void>;
  /** Fires the thread's alarm now (the watchdog). */
  alarm(threadId: string): Promise<void>;
  /** Resolves once no turn runs in the thread. */
  waitIdle(threadId: string): Promise<void>;
  /** Every frame after `since`, through a WebSocket replay. */
  events(threadId: string, since?: number): Promise<FuzzFrame[]>;
}

/** Sends JSON and parses the answer (a body that is not JSON comes back as `{ text }`). */
export async function sendJson<T = any>(target: FuzzTarget, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await target.request(path, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) }, "tester");
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as T };
  } catch {
    return { status: res.status, body: { text } as T };
  }
}
