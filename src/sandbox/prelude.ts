/**
 * Code both executors run inside the sandbox before the caller's code: console capture,
 * `reportProgress`, timers (QuickJS), import modules that forward to the host, and `start`, which
 * calls the chosen export and encodes its value.
 * @module
 */
import { VM_CODEC_SOURCE } from "./codec.js";

/** Formats console arguments the way a terminal would, without host objects. */
const FORMAT_SOURCE = String.raw`
const format = (args) => args.map((a) => {
  if (typeof a === "string") return a;
  if (a instanceof Error) return a.stack && !String(a.stack).startsWith(a.name) ? a.name + ": " + a.message + "\n" + a.stack : String(a.stack || a);
  try { const text = JSON.stringify(a, (_k, v) => (typeof v === "bigint" ? v + "n" : v)); return text === undefined ? String(a) : text; } catch { return String(a); }
}).join(" ");
`;

/**
 * The VM side of a run (QuickJS): expects `globalThis.__weftHost` with `tick()`, `log(level, text)`,
 * `progress(text)`, `call(module, name, argsText)`, `sleep(ms, id)`, `wake(id)` (a cleared timer) and, when an origin is granted,
 * `fetch(url, initText)` (a small Response-like result), and replaces it by
 * `globalThis.__weft` (`setGlobals`, `call`, `start`).
 */
export const QUICKJS_PRELUDE = String.raw`(() => {
const host = globalThis.__weftHost;
delete globalThis.__weftHost;
// The tick of instrumented code (instrument.ts): fixed, so code cannot take another run's place.
Object.defineProperty(globalThis, "__weftTick", { value: host.tick });
${VM_CODEC_SOURCE}
${FORMAT_SOURCE}
const out = {};
for (const level of ["log", "info", "warn", "error", "debug"]) out[level] = (...args) => { host.log(level, format(args)); };
globalThis.console = out;
globalThis.reportProgress = (data) => { host.progress(encode(data, "progress")); };
let nextTimer = 1;
const timers = new Set();
globalThis.setTimeout = (fn, ms, ...args) => {
  const id = nextTimer++;
  // Kept only once the host took it: a refused one (past the run's pending timers) throws here.
  const slept = host.sleep(Number(ms) || 0, id);
  timers.add(id);
  slept.then(() => { if (timers.delete(id)) fn(...args); });
  return id;
};
// A cleared timer is let go in the host too: it no longer counts against the run's pending timers.
globalThis.clearTimeout = (id) => { if (timers.delete(id)) host.wake(id); };
const call = (module, name, args) => host.call(module, name, encode(args, name + " arguments")).then(decode);
if (host.fetch) {
  globalThis.fetch = async (url, init = {}) => {
    const r = decode(await host.fetch(String(url), encode({ method: init.method, headers: init.headers, body: init.body }, "fetch init")));
    return {
      ok: r.status >= 200 && r.status < 300, status: r.status, statusText: r.statusText, url: String(url),
      headers: { get: (name) => r.headers[String(name).toLowerCase()] ?? null, entries: () => Object.entries(r.headers) },
      text: async () => r.body, json: async () => JSON.parse(r.body),
    };
  };
}
Object.defineProperty(globalThis, "__weft", { value: Object.freeze({
  call,
  setGlobals(text) { const values = decode(text); for (const key of Object.keys(values)) globalThis[key] = values[key]; },
  async start(namespace, fn, argsText) {
    const ns = await namespace;
    const target = ns[fn];
    if (typeof target !== "function") throw new TypeError("the code has no exported function " + JSON.stringify(fn) + "; its exports: " + (Object.keys(ns).join(", ") || "none"));
    return encode(await target(...decode(argsText)), "result");
  },
}) });
})();`;

/** Source of an import module: each name forwards to the host through `__weft.call`. */
export function importModuleSource(specifier: string, names: readonly string[]): string {
  // `export { f0 as name }` accepts reserved words (a tool may be called `delete`).
  const lines = names.map((name, i) => `const f${i} = (...args) => globalThis.__weft.call(${JSON.stringify(specifier)}, ${JSON.stringify(name)}, args);\nexport { f${i} as ${name} };`);
  return lines.join("\n");
}

/**
 * The isolate harness (Worker Loader): a `WorkerEntrypoint` whose `run` sends console output and
 * `reportProgress` to the run's host stub (kept per run, in AsyncLocalStorage when runs of one warm
 * isolate overlap, so they stay apart), or buffers console lines into the reply when the run was handed
 * no stub; imports the entry module, calls the export and returns its value encoded (the text
 * alone when no console lines travel with it), or the error it threw.
 */
export function isolateHarnessSource(entry: string, globalsText: string, fetchGranted: boolean): string {
  return String.raw`import { WorkerEntrypoint } from "cloudflare:workers";
import { AsyncLocalStorage } from "node:async_hooks";
${VM_CODEC_SOURCE}
${FORMAT_SOURCE}
// A run that starts while another is open is kept in AsyncLocalStorage; the one that starts alone
// is "solo", outside any store, because entering a store costs more than the rest of a warm run.
// Code of the solo run never sees a store, so its calls still find their own run.
const current = new AsyncLocalStorage();
let solo = null;
let open = 0;
const runOf = () => { const run = current.getStore() ?? solo; if (!run || run.ended) throw new Error("this sandbox call has ended"); return run; };
const hostOf = () => { const host = runOf().host; if (!host) throw new Error("this sandbox was granted no host capability"); return host; };
const ignore = () => {};
// A run's calls to the host go out in order, in two lanes of at most MAX_IN_FLIGHT at once: console
// lines and progress in one, imports and fetches in the other, so output never waits behind slow
// calls (the reply waits for its lines). The rest wait here, in the isolate's memory: thousands of
// calls in flight on one stub kept the host's thread busy past the run's deadline (the cost grew
// with their square). Once the host says the run has ended (it answers false, which no call
// answers otherwise; a tool's error may say anything), what still waits is refused here. A call
// goes out only after the lines written before it (calls on one stub arrive in order), so a tool
// never runs ahead of the output that preceded it; lines never wait for calls.
const MAX_IN_FLIGHT = 16;
const ENDED = "this sandbox call has ended";
const newLane = () => ({ queue: [], head: 0, inFlight: 0, taken: 0 });
const send = (run, lane, op) => new Promise((resolve, reject) => {
  lane.queue.push([op, resolve, reject, run.output.taken + run.output.queue.length - run.output.head]);
  pump(run, lane);
});
const pump = (run, lane) => {
  while (lane.inFlight < MAX_IN_FLIGHT && lane.head < lane.queue.length && (lane === run.output || lane.queue[lane.head][3] <= run.output.taken)) {
    const [op, resolve, reject] = lane.queue[lane.head];
    lane.queue[lane.head++] = undefined;
    lane.taken++;
    if (run.hostEnded) { reject(new Error(ENDED)); continue; }
    lane.inFlight++;
    Promise.resolve().then(op).then(
      (value) => { if (value !== false) return resolve(value); run.hostEnded = true; reject(new Error(ENDED)); },
      reject,
    ).finally(() => { lane.inFlight--; pump(run, lane); });
  }
  if (lane.head === lane.queue.length) { lane.queue.length = 0; lane.head = 0; }
  if (lane === run.output && run.calls.head < run.calls.queue.length) pump(run, run.calls);
};
const out = {};
// Output past the cap is dropped here too, so a logging loop does not flood the host with calls.
for (const level of ["log", "info", "warn", "error", "debug"]) out[level] = (...args) => {
  const run = runOf();
  if (run.logBytes > run.maxLogBytes) return;
  const text = format(args);
  // Each line counts with its newline, as the host counts it.
  run.logBytes += text.length + 1;
  // Without a host stub (nothing to stream), lines travel back with the reply.
  if (run.host) run.pending.push(send(run, run.output, () => run.host.log(level, text)).catch(ignore));
  else run.logs.push([level, text]);
};
Object.defineProperty(globalThis, "console", { value: out, writable: true, configurable: true });
globalThis.reportProgress = (data) => {
  const run = runOf();
  if (run.progressBytes > run.maxLogBytes) return;
  const text = encode(data, "progress");
  run.progressBytes += text.length;
  if (run.host) run.pending.push(send(run, run.output, () => run.host.progress(text)).catch(ignore));
};
Object.defineProperty(globalThis, "__weft", { value: Object.freeze({
  call: (module, name, args) => { const host = hostOf(); const run = runOf(); const text = encode(args, name + " arguments"); return send(run, run.calls, () => host.call(module, name, text)).then(decode); },
}) });
{ const values = decode(${JSON.stringify(globalsText)}); for (const key of Object.keys(values)) globalThis[key] = values[key]; }
${
  fetchGranted
    ? `// globalOutbound is null: fetch goes through the host's gateway, which checks the granted origins.
// The statuses whose response has no body (the Fetch standard's null body statuses the host can see).
const NULL_BODY = [204, 205, 304];
globalThis.fetch = async (input, init = {}) => {
  const request = new Request(input, init);
  const body = request.body ? await request.text() : undefined;
  const host = hostOf();
  const initText = encode({ method: request.method, headers: Object.fromEntries(request.headers), body }, "fetch init");
  const run = runOf();
  const r = decode(await send(run, run.calls, () => host.fetch(request.url, initText)));
  return new Response(NULL_BODY.includes(r.status) ? null : r.body, { status: r.status, statusText: r.statusText, headers: r.headers });
};`
    : ""
}
let entryModule;
/**
 * The loaded isolate's entrypoint: run(fn) calls the code's exported function fn and never throws;
 * a failure comes back in the reply ({ ok: false, name, message, stack }), with any buffered logs.
 */
export class Sandbox extends WorkerEntrypoint {
  async run(fn, argsText, maxLogBytes, host) {
    const run = { host, maxLogBytes, logBytes: 0, progressBytes: 0, pending: [], logs: [], ended: false, output: newLane(), calls: newLane(), hostEnded: false };
    const call = async () => {
      try {
        const ns = await (entryModule ??= import(${JSON.stringify(`./${entry}`)}));
        const target = ns[fn];
        if (typeof target !== "function") throw new TypeError("the code has no exported function " + JSON.stringify(fn) + "; its exports: " + (Object.keys(ns).join(", ") || "none"));
        // An own "then" keeps code that defines Object.prototype.then from hijacking the reply.
        return { then: undefined, ok: true, text: encode(await target(...decode(argsText)), "result") };
      } catch (e) {
        const error = e instanceof Error ? e : new Error(format([e]));
        return { then: undefined, ok: false, name: error.name, message: String(error.message), stack: String(error.stack ?? "") };
      }
    };
    let reply;
    if (open++ === 0) {
      solo = run;
      try { reply = await call(); } finally { open--; if (solo === run) solo = null; }
    } else {
      try { reply = await current.run(run, call); } finally { open--; }
    }
    // Calls on one stub arrive in order: once these settle, the host has every line before the reply.
    if (run.pending.length > 0) await Promise.allSettled(run.pending);
    run.ended = true;
    // The common reply, a value and no buffered lines, is the encoded text alone: cheaper to send.
    if (reply.ok && run.logs.length === 0) return reply.text;
    reply.logs = run.logs;
    return reply;
  }
}
export default { fetch() { return new Response("weft sandbox", { status: 404 }); } };
`;
}
