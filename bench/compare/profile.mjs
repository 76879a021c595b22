#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:profile`: a V8 CPU profile of one bench/compare target under load, taken through
 * workerd's `--inspector-addr` (the Chrome DevTools Protocol's Profiler domain). Prints the
 * functions with the most self time and writes the .cpuprofile (open it in Chrome DevTools) under
 * bench/results/.
 *
 *   npm run bench:profile -- [--target weft|bare|sdk] [--tool bench_write|bench_read] [--threads 1|100] [--seconds 5]
 *   npm run bench:profile -- --turns 200 [--target weft|bare|sdk|chat] [--model scripted|provider]
 *     (turns with 3 tool calls, one after another; `provider`: over the fake provider, lib/provider.mjs)
 *   npm run bench:profile -- --bursts 10 [--one-message] [--target weft|bare|sdk]
 *     (fan-out: bursts of 200 events to 100 sockets, batched frames, or one message per event)
 *   npm run bench:profile -- --sequential 2000 [--target ...] [--tool ...] [--threads 100]
 *     (calls one at a time: where a call's latency goes, JavaScript against waiting)
 *   npm run bench:profile -- --cold 200 [--target weft|bare|sdk]
 *     (cold starts: the thread's Durable Object evicted, then one read call, 200 times)
 * `--base DIR` profiles weft as built from another checkout (as bench:compare's `--base`).
 * @module
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { devtools } from "./lib/devtools.mjs";
import { closeAll } from "./lib/http.mjs";
import { coldStart, fanOut, sequential, throughput, turns } from "./lib/measure.mjs";
import { startProvider } from "./lib/provider.mjs";
import { freePort, startAll } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const target = opt("target", "weft");
const tool = opt("tool", "bench_write");
const threadCount = Number(opt("threads", "1"));
const seconds = Number(opt("seconds", "5"));
const turnCount = Number(opt("turns", "0"));
const model = opt("model", "scripted");
const coldCount = Number(opt("cold", "0"));
const burstCount = Number(opt("bursts", "0"));
const sequentialCount = Number(opt("sequential", "0"));
const batched = !args.includes("--one-message");
const FROM = opt("base", ROOT);
const TOP = 25;
/** The profiler's sampling interval (µs). */
const SAMPLING_US = 100;

const t = targets[target];
if (!t) throw new Error(`--target: one of ${Object.keys(targets).join(", ")}`);
const inspectorPort = await freePort();
const provider = await startProvider();
const { servers, stop: stopAll, work } = await startAll(FROM, [{ ...t.spec, outbound: `127.0.0.1:${provider.port}`, port: await freePort(), inspectorPort }]);
const stop = () => (stopAll(), provider.close());
const turnOpts = { model, fake: provider.fake };
const base = servers[0].base;
/**
 * What is profiled, by mode: its warm-up, the measured run (its figure), the file's name, the
 * units the profile is divided by, and the line that says what ran.
 * @type {{ warm: (threads: string[]) => Promise<unknown>, run: (threads: string[]) => Promise<number>, what: string, unit: string, units: (rate: number) => number, says: (rate: number, wallS: number) => string }}
 */
const mode =
  burstCount > 0
    ? {
        warm: () => fanOut(t, base, 100, 200, 2, batched),
        run: async () => (await fanOut(t, base, 100, 200, burstCount, batched)).eventsPerSecond,
        what: batched ? "fanout" : "fanout1",
        unit: "event",
        units: () => burstCount * 200,
        says: (rate, wallS) => `${target} fan-out, ${burstCount} bursts of 200 events to 100 sockets, ${batched ? "batched frames" : "one message per event"}: median ${rate.toFixed(0)} events/s delivered in ${wallS.toFixed(1)} s while profiling (setup included)`,
      }
    : coldCount > 0
    ? {
        warm: (threads) => throughput(t, base, tool, threads, 1000),
        run: () => coldStart(t, base, coldCount),
        what: "cold",
        unit: "cold start",
        units: () => coldCount,
        says: (rate, wallS) => `${target} cold starts: ${coldCount} in ${wallS.toFixed(1)} s, median ${rate.toFixed(2)} ms while profiling`,
      }
    : sequentialCount > 0
    ? {
        warm: (threads) => throughput(t, base, tool, threads, 1000),
        run: async (threads) => (await sequential(t, base, tool, threads, sequentialCount, 0)).p50,
        what: `${tool}-${threadCount}t-sequential`,
        unit: "call",
        units: () => sequentialCount,
        says: (rate, wallS) => `${target} ${tool}, ${threadCount} thread(s), ${sequentialCount} sequential calls in ${wallS.toFixed(1)} s: p50 ${rate.toFixed(3)} ms while profiling`,
      }
    : turnCount > 0
      ? {
          warm: () => turns(t, base, 20, turnOpts),
          run: () => turns(t, base, turnCount, turnOpts),
          what: model === "provider" ? "provider-turns" : "turns",
          unit: "turn",
          units: () => turnCount + 3,
          says: (rate, wallS) => `${target} ${model} turns with 3 tool calls: ${turnCount} in ${wallS.toFixed(1)} s, median ${rate.toFixed(2)} ms while profiling`,
        }
      : {
          warm: (threads) => throughput(t, base, tool, threads, 1000),
          run: (threads) => throughput(t, base, tool, threads, seconds * 1000),
          what: `${tool}-${threadCount}t`,
          unit: "call",
          units: (rate) => rate * seconds,
          says: (rate) => `${target} ${tool}, ${threadCount} thread(s), 16 clients: ${rate.toFixed(0)} calls/s while profiling`,
        };
try {
  const threads = [];
  for (let i = 0; i < threadCount; i++) threads.push(await t.newThread(base));
  await mode.warm(threads);
  const list = /** @type {Array<{ webSocketDebuggerUrl: string }>} */ (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json());
  const cdp = await devtools(list[0].webSocketDebuggerUrl);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
  await cdp.send("Profiler.start");
  const started = performance.now();
  const rate = await mode.run(threads);
  const wallS = (performance.now() - started) / 1000;
  const { profile } = await cdp.send("Profiler.stop");
  cdp.close();
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  const file = path.join(ROOT, "bench/results", `profile-${target}-${mode.what}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  console.log(`${mode.says(rate, wallS)}; wrote ${path.relative(ROOT, file)}`);
  for (const line of perCall(profile, mode.units(rate), mode.unit, coldCount > 0 ? SAMPLING_US : undefined)) console.log(line);
  for (const line of summarize(profile)) console.log(line);
  for (const line of byModule(profile, readFileSync(path.join(work, target, `${t.spec.bundle ?? target}.js`), "utf8"))) console.log(line);
} finally {
  closeAll();
  stop();
  rmSync(work, { recursive: true, force: true });
}

/**
 * One line: the profile's wall time per call (µs) split into JavaScript (with builtins such as
 * SQLite's `exec`, and GC), "(program)" (workerd's native work outside JavaScript, commits among
 * it) and "(idle)", so two targets' profiles compare in µs rather than in shares. With
 * `intervalUs`, each sample counts that long instead: workerd takes few samples while the
 * isolate sleeps, so a run with pauses (the cold starts' waits after each eviction) would spread
 * the pauses over the samples it took.
 */
function perCall(profile, calls, unit, intervalUs) {
  const wall = profile.endTime - profile.startTime; // µs
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  const n = { js: 0, gc: 0, program: 0, idle: 0 };
  for (const id of profile.samples) {
    const name = byId.get(id);
    if (name === "(idle)") n.idle++;
    else if (name === "(program)") n.program++;
    else {
      n.js++;
      if (name === "(garbage collector)") n.gc++;
    }
  }
  const us = (k) => (intervalUs ? n[k] * intervalUs : (n[k] / profile.samples.length) * wall) / calls;
  return [`per ${unit} (µs ${intervalUs ? `of samples, ${intervalUs} µs each` : "of the profile's wall time"}): ${us("js").toFixed(0)} in JavaScript, builtins and GC (GC ${us("gc").toFixed(0)}), ${us("program").toFixed(0)} in "(program)", ${us("idle").toFixed(0)} "(idle)"; ${calls.toFixed(0)} ${unit}s`];
}

/** Lines: the share of samples per category, then the functions with the most self time. */
function summarize(profile) {
  const total = profile.samples.length;
  const self = new Map();
  const counts = new Map();
  for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  for (const node of profile.nodes) {
    const hits = counts.get(node.id) ?? 0;
    if (hits === 0) continue;
    const f = node.callFrame;
    const where = f.url ? `${f.url.split("/").pop()}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + hits);
  }
  const idle = (self.get("(idle)") ?? 0) + (self.get("(program)") ?? 0);
  const lines = [`samples: ${total} (${((idle / total) * 100).toFixed(0)}% idle or outside JavaScript: "(idle)" + "(program)")`];
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [key, hits] of top) lines.push(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  return lines;
}

/**
 * Lines: the share of JavaScript samples (idle left out) per source module of the bundle, found
 * by the `// path` comment esbuild writes where each module starts; builtins without a line
 * (`exec`, `Response`, ...) are listed by name.
 */
function byModule(profile, bundle) {
  const starts = [];
  bundle.split("\n").forEach((text, i) => {
    const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(text);
    if (m) starts.push({ line: i, name: m[1].replace(/^(\.\.\/)+/, "").replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, "node_modules/") });
  });
  const moduleOf = (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = "(bundle prelude)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid].line <= line) {
        found = starts[mid].name;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  let busy = 0;
  for (const id of profile.samples) {
    const f = byId.get(id).callFrame;
    if (f.functionName === "(idle)" || f.functionName === "(program)") continue;
    busy++;
    const key = f.url && f.url.endsWith(".js") && f.lineNumber >= 0 ? moduleOf(f.lineNumber) : f.url ? `${f.url.split("/").pop()} (runtime JS)` : `${f.functionName} (native)`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const lines = [`self time by source module (${busy} samples in JavaScript, builtins and GC):`];
  for (const [key, n] of [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) lines.push(`${((n / busy) * 100).toFixed(1).padStart(5)}%  ${key}`);
  return lines;
}
