// @ts-check
/**
 * The three targets of bench/compare behind one interface: make a thread, call a tool, run a
 * scripted turn with three tool calls, subscribe, emit a burst of events, evict the thread's
 * Durable Object. Only the URLs differ; each target does the same work its own way.
 * @module
 */
import { request } from "./http.mjs";

let names = 0;
const freshName = () => `t${process.pid}-${Date.now().toString(36)}-${names++}`;

/** WebSocket collecting frames (parsed JSON when possible) in arrival order, with arrival times. */
export function subscribe(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const sub = { ws, frames: /** @type {any[]} */ ([]), times: /** @type {number[]} */ ([]), listeners: new Set() };
    ws.onmessage = (e) => {
      let frame;
      try {
        frame = JSON.parse(String(e.data));
      } catch {
        frame = e.data;
      }
      sub.frames.push(frame);
      sub.times.push(performance.now());
      for (const l of sub.listeners) l();
    };
    ws.onopen = () => resolve(sub);
    ws.onerror = () => reject(new Error(`WebSocket ${url} failed`));
  });
}

/** Resolves once `pred()` holds, re-checked on every frame of `sub`; rejects after `ms`. */
export function until(sub, pred, ms = 30_000) {
  return new Promise((resolve, reject) => {
    if (pred()) return resolve(undefined);
    const timer = setTimeout(() => {
      sub.listeners.delete(check);
      reject(new Error("timed out waiting for frames"));
    }, ms);
    const check = () => {
      if (!pred()) return;
      clearTimeout(timer);
      sub.listeners.delete(check);
      resolve(undefined);
    };
    sub.listeners.add(check);
  });
}

const ws = (base) => base.replace(/^http/, "ws");
const SCRIPT = [
  { toolCalls: [0, 1, 2].map((n) => ({ name: "bench_read", arguments: { n, text: "turn" } })) },
  { text: "done" },
];

export const targets = {
  bare: {
    spec: { name: "bare", durableObjects: [{ binding: "BARE", className: "BareThread" }] },
    newThread: async () => freshName(),
    tool: (base, t, name, input) => request(base, "POST", `/v1/tools/${name}`, { input, sessionId: t }),
    turnSetup: async () => null,
    turn: (base, t) => request(base, "POST", `/threads/${t}/turn`, { content: "hello" }),
    wsUrl: (base, t) => `${ws(base)}/threads/${t}/ws`,
    burst: (base, t, count, text) => request(base, "POST", `/threads/${t}/burst`, { count, text }),
    evict: (base, t) => request(base, "POST", `/threads/${t}/evict`),
  },
  sdk: {
    spec: { name: "sdk", durableObjects: [{ binding: "BenchAgent", className: "BenchAgent" }] },
    newThread: async () => freshName(),
    tool: (base, t, name, input) => request(base, "POST", `/agents/bench-agent/${t}/tool/${name}`, { input }),
    turnSetup: async () => null,
    turn: (base, t) => request(base, "POST", `/agents/bench-agent/${t}/turn`, { content: "hello" }),
    wsUrl: (base, t) => `${ws(base)}/agents/bench-agent/${t}`,
    burst: (base, t, count, text) => request(base, "POST", `/agents/bench-agent/${t}/burst`, { count, text }),
    evict: (base, t) => request(base, "POST", `/agents/bench-agent/${t}/evict`).catch(() => null),
  },
  weft: {
    spec: {
      name: "weft",
      durableObjects: [
        { binding: "THREAD", className: "Thread" },
        { binding: "ACCOUNT", className: "UserAccount" },
      ],
      vars: { WEFT_AUTH: "none", WEFT_MAX_THREADS_PER_USER: "100000" },
    },
    newThread: async (base) => /** @type {{ threadId: string }} */ (await request(base, "POST", "/threads", {})).threadId,
    tool: async (base, t, name, input) => {
      const out = /** @type {{ ok: boolean }} */ (await request(base, "POST", `/v1/tools/${name}`, { input, sessionId: t }));
      if (!out.ok) throw new Error(`weft ${name}: ${JSON.stringify(out)}`);
      return out;
    },
    // A turn is done when its turn_finished frame arrives; one subscription per turn thread.
    turnSetup: (base, t) => subscribe(`${ws(base)}/threads/${t}/ws`),
    turn: async (base, t, sub) => {
      const mark = sub.frames.length;
      await request(base, "POST", `/threads/${t}/messages`, { content: "hello", script: SCRIPT });
      await until(sub, () => sub.frames.slice(mark).some((f) => f?.type === "turn_finished"));
    },
    // As weft's own client (src/client/subscribe.ts) subscribes: a burst arrives as JSON arrays of frames.
    wsUrl: (base, t) => `${ws(base)}/threads/${t}/ws?batch=1`,
    burst: (base, t, count, text) => request(base, "POST", "/v1/tools/bench_burst", { input: { count, text }, sessionId: t }),
    evict: (base, t) => request(base, "POST", `/__bench/evict/${t}`),
  },
};
