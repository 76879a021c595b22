// @ts-check
/**
 * The targets of bench/compare behind one interface: make a thread, call a tool, run a turn with
 * three tool calls (`model`: `scripted`, in the target, or `provider`, the harness's fake provider
 * with the thread's `key`), subscribe, emit a burst of events (`batch`: one message per burst
 * instead of one per event), evict the thread's Durable Object, read the rows its objects touched.
 * Only the URLs differ; each target does the same work its own way. `chat` (an `AIChatAgent`) only
 * runs turns: it has no tool route, and its fan-out is the `Agent` broadcast the `sdk` target
 * measures.
 * @module
 */
import path from "node:path";
import { readUIMessageStream } from "ai";
import { BENCH_KEY, BENCH_KEY_SHA256, request } from "./http.mjs";
import { FAKE_BASE } from "./provider.mjs";

let names = 0;
const freshName = () => `t${process.pid}-${Date.now().toString(36)}-${names++}`;

/** WebSocket collecting frames (parsed JSON when possible) in arrival order, with arrival times. */
export function subscribe(url) {
  return new Promise((resolve, reject) => {
    // Node's WebSocket sends no headers: the key goes as ?access_token=, as a browser's would.
    const ws = new WebSocket(`${url}${url.includes("?") ? "&" : "?"}access_token=${BENCH_KEY}`);
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
/** weft's scripted turn: three tool calls, then "done" (the baselines' scripted model plays the same). */
const SCRIPT = [
  { toolCalls: [0, 1, 2].map((n) => ({ name: "bench_read", arguments: { n, text: "turn" } })) },
  { text: "done" },
];
const baseline = { BENCH_API_KEY_SHA256: BENCH_KEY_SHA256 };
/** Starts counting the rows the target's objects read and write (bench/compare/targets/lib/rows.ts; off until asked, so timed steps run without it). */
const count = (base) => request(base, "GET", "/__bench/rows?count");
/** Rows the target's objects read and wrote since counting started, which stops it; NaN where the target has no count. */
const rows = async (base) => {
  try {
    return /** @type {{ rowsRead: number, rowsWritten: number }} */ (await request(base, "GET", "/__bench/rows"));
  } catch {
    return { rowsRead: NaN, rowsWritten: NaN };
  }
};

export const targets = {
  bare: {
    spec: { name: "bare", durableObjects: [{ binding: "BARE", className: "BareThread" }], vars: baseline },
    newThread: async () => freshName(),
    tool: (base, t, name, input) => request(base, "POST", `/v1/tools/${name}`, { input, sessionId: t }),
    turnSetup: async () => null,
    turn: (base, t, _sub, { model = "scripted", key = "" } = {}) => request(base, "POST", `/threads/${t}/turn`, { content: "hello", model, key }),
    wsUrl: (base, t, batch) => `${ws(base)}/threads/${t}/ws${batch ? "?batch=1" : ""}`,
    burst: (base, t, count, text) => request(base, "POST", `/threads/${t}/burst`, { count, text }),
    evict: (base, t) => request(base, "POST", `/threads/${t}/evict`),
    count,
    rows,
  },
  sdk: {
    spec: { name: "sdk", durableObjects: [{ binding: "BenchAgent", className: "BenchAgent" }], vars: baseline },
    newThread: async () => freshName(),
    tool: (base, t, name, input) => request(base, "POST", `/agents/bench-agent/${t}/tool/${name}`, { input }),
    turnSetup: async () => null,
    turn: (base, t, _sub, { model = "scripted", key = "" } = {}) => request(base, "POST", `/agents/bench-agent/${t}/turn`, { content: "hello", model, key }),
    wsUrl: (base, t, batch) => `${ws(base)}/agents/bench-agent/${t}${batch ? "?batch=1" : ""}`,
    burst: (base, t, count, text) => request(base, "POST", `/agents/bench-agent/${t}/burst`, { count, text }),
    evict: (base, t) => request(base, "POST", `/agents/bench-agent/${t}/evict`).catch(() => null),
    count,
    rows,
  },
  chat: {
    spec: { name: "chat", durableObjects: [{ binding: "BenchChat", className: "BenchChat" }], vars: baseline },
    newThread: async () => freshName(),
    turnSetup: async (base, t) => Object.assign(await subscribe(`${ws(base)}/agents/bench-chat/${t}`), { history: /** @type {any[]} */ ([]) }),
    // As useAgentChat sends a turn: the whole history and the new user message, over the socket;
    // done at the response's `done` frame. The assistant's message is rebuilt from the streamed
    // chunks with the AI SDK's readUIMessageStream (as the hook's Chat does) for the next turn.
    turn: async (base, t, sub, { model = "scripted", key = "" } = {}) => {
      const id = `r${++turnIds}`;
      const user = { id: `u${turnIds}`, role: "user", parts: [{ type: "text", text: "hello" }] };
      const mark = sub.frames.length;
      sub.ws.send(JSON.stringify({ type: "cf_agent_use_chat_request", id, init: { method: "POST", body: JSON.stringify({ messages: [...sub.history, user], trigger: "submit-message", model, key }) } }));
      const mine = () => sub.frames.slice(mark).filter((f) => f?.type === "cf_agent_use_chat_response" && f.id === id);
      await until(sub, () => mine().some((f) => f.done || f.error));
      const frames = mine();
      if (frames.some((f) => f.error)) throw new Error(`chat turn: ${JSON.stringify(frames.find((f) => f.error))}`);
      const chunks = frames.filter((f) => f.body).map((f) => JSON.parse(f.body));
      let assistant;
      const stream = new ReadableStream({ start: (c) => (chunks.forEach((ch) => c.enqueue(ch)), c.close()) });
      for await (const m of readUIMessageStream({ stream })) assistant = m;
      sub.history.push(user, assistant);
      sub.frames.length = 0;
    },
    count,
    rows,
  },
  weft: {
    spec: {
      name: "weft",
      durableObjects: [
        { binding: "THREAD", className: "Thread" },
        { binding: "ACCOUNT", className: "UserAccount" },
      ],
      vars: { WEFT_API_KEYS: JSON.stringify({ [BENCH_KEY_SHA256]: { userId: "bench" } }), WEFT_MAX_THREADS_PER_USER: "100000" },
    },
    // A thread for turns over the provider names it (the fake at FAKE_BASE, with the thread's own key).
    newThread: async (base, key) => {
      const env = key ? { WEFT_MODEL: { value: "openai:gpt-4.1-mini", type: "text" }, OPENAI_API_KEY: { value: key, type: "secret" }, OPENAI_BASE_URL: { value: FAKE_BASE, type: "text" } } : undefined;
      return /** @type {{ threadId: string }} */ (await request(base, "POST", "/threads", env ? { env } : {})).threadId;
    },
    tool: async (base, t, name, input) => {
      const out = /** @type {{ ok: boolean }} */ (await request(base, "POST", `/v1/tools/${name}`, { input, sessionId: t }));
      if (!out.ok) throw new Error(`weft ${name}: ${JSON.stringify(out)}`);
      return out;
    },
    // A turn is done when its turn_finished frame arrives; one subscription per turn thread.
    turnSetup: (base, t) => subscribe(`${ws(base)}/threads/${t}/ws`),
    turn: async (base, t, sub, opts) => {
      const mark = sub.frames.length;
      await request(base, "POST", `/threads/${t}/messages`, opts?.model === "provider" ? { content: "hello" } : { content: "hello", script: SCRIPT });
      await until(sub, () => sub.frames.slice(mark).some((f) => f?.type === "turn_finished"));
      const done = sub.frames.slice(mark).find((f) => f?.type === "turn_finished");
      if ((done.data ?? done).status !== "completed") throw new Error(`weft turn: ${JSON.stringify(done).slice(0, 300)}`);
    },
    // batch: as weft's own client (src/client/subscribe.ts) subscribes, a burst arriving as JSON arrays of frames.
    wsUrl: (base, t, batch) => `${ws(base)}/threads/${t}/ws${batch ? "?batch=1" : ""}`,
    burst: (base, t, count, text) => request(base, "POST", "/v1/tools/bench_burst", { input: { count, text }, sessionId: t }),
    evict: (base, t) => request(base, "POST", `/__bench/evict/${t}`),
    count,
    rows,
  },
};
/** bare with its tool calls keeping weft's promises for a call (targets/bare.ts, `BENCH_JOURNAL`): the floor of a journaled call (journal-floor.mjs, and the tool steps of run.mjs). */
targets["bare-journaled"] = { ...targets.bare, spec: { ...targets.bare.spec, name: "bare-journaled", bundle: "bare", vars: { ...baseline, BENCH_JOURNAL: "1" } } };
let turnIds = 0;

/**
 * The two sides of a side-by-side run (side-by-side.mjs, perf.mjs): A is target `--a` built from
 * `--base DIR` (default: `root`, this tree), B is target `--b` from `root`.
 * @param {(name: string, fallback: string) => string} opt the script's flag reader
 * @param {string} root this checkout
 * @param {{ a: string, b: string }} defaults the target names when `--a`/`--b` are not given
 * @returns {Array<{ label: string, name: string, root: string }>}
 * @throws Error naming the flag when a name is not one of {@link targets}
 */
export function sidesOf(opt, root, defaults) {
  const sides = [
    { label: "A", name: opt("a", defaults.a), root: path.resolve(opt("base", root)) },
    { label: "B", name: opt("b", defaults.b), root },
  ];
  for (const side of sides) if (!targets[side.name]) throw new Error(`--${side.label.toLowerCase()}: one of ${Object.keys(targets).join(", ")}`);
  return sides;
}
