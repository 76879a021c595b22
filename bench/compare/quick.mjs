#!/usr/bin/env node
// @ts-check
/**
 * A quick side-by-side for iterating on the hot path (not the report of record: that is
 * `npm run bench:compare`): bare and weft (and with `--base DIR` weft as built from another
 * checkout, such as `git archive main`, with node_modules linked) built and served once, then
 * rotating rounds of sequential p50 and 16-client calls/s for the read and write tools on one
 * thread, with workerd's CPU time per call (user + system, from /proc): steady on a loaded
 * machine where latency is not.
 *
 *   node bench/compare/quick.mjs [--rounds 3] [--base DIR] [--timeline bench_read] [--turns]
 *
 * `--set "100 threads"` (or `"one thread"`) measures calls/s and CPU on that set of threads only.
 *
 * `--turns` times scripted turns with three tool calls instead of single calls: per round and
 * target, the median of 20 turns on a fresh thread, and workerd's CPU time per turn.
 *
 * `--statements` prints, for 100 sequential calls of each tool on one thread after 20 warm-up
 * calls, the SQL statements each target ran per call with the rows each read and wrote (what
 * Durable Object storage bills), then stops.
 *
 * `--timeline TOOL` also takes a CPU profile of weft during sequential calls and splits each
 * call's wall time into JavaScript by where it ran and time with no JavaScript running.
 * @module
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { devtools } from "./lib/devtools.mjs";
import { closeAll, request } from "./lib/http.mjs";
import { ROW_CALLS, median, sequential, throughput, turns, warm } from "./lib/measure.mjs";
import { cpuMs, freePort, startAll } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const ROUNDS = Number(opt("rounds", "3"));
const TIMELINE = opt("timeline", "");
const BASE = opt("base", "");
const TURNS = args.includes("--turns");
const STATEMENTS = args.includes("--statements");
// --set "one thread" | "100 threads": only that set's calls/s and CPU (sequential p50 still runs).
const SETS = opt("set", "");
const NAMES = BASE ? ["bare", "base", "weft"] : ["bare", "weft"];
targets.base = targets.weft;
// --watchdog MS: weft's WEFT_WATCHDOG_MS, to see what the watchdog alarm costs.
if (opt("watchdog", "")) targets.weft = { ...targets.weft, spec: { ...targets.weft.spec, vars: { ...targets.weft.spec.vars, WEFT_WATCHDOG_MS: opt("watchdog", "") } } };
const inspectorPort = await freePort();
const main = await startAll(
  ROOT,
  await Promise.all(["bare", "weft"].map(async (n) => ({ ...targets[n].spec, port: await freePort(), ...(n === "weft" && TIMELINE ? { inspectorPort } : {}) }))),
);
const other = BASE ? await startAll(BASE, [{ ...targets.weft.spec, port: await freePort() }]) : null;
const servers = [...main.servers, ...(other ? other.servers.map((s) => ({ ...s, spec: { ...s.spec, name: "base" } })) : [])];
const stop = () => (main.stop(), other?.stop());
const work = main.work;
const base = Object.fromEntries(servers.map((s) => [s.spec.name, s.base]));
const one = {};
const hundred = {};
for (const n of NAMES) {
  one[n] = [await targets[n].newThread(base[n])];
  hundred[n] = [];
  for (let i = 0; i < 100; i++) hundred[n].push(await targets[n].newThread(base[n]));
}
const res = {};
const put = (n, m, v) => ((res[n] ??= {})[m] ??= []).push(v);
try {
  if (STATEMENTS) {
    for (const n of NAMES) await statements(n);
    process.exitCode = 0;
  } else if (TURNS) for (const n of NAMES) await turns(targets[n], base[n], 8);
  else for (const n of NAMES) for (const tool of ["bench_read", "bench_write"]) for (const set of [one[n], hundred[n]]) await throughput(targets[n], base[n], tool, set, 2000);
  for (let r = 0; !STATEMENTS && TURNS && r < ROUNDS; r++) {
    for (let k = 0; k < NAMES.length; k++) {
      const n = NAMES[(k + r) % NAMES.length];
      const pid = servers.find((x) => x.spec.name === n).child.pid;
      const cpu0 = cpuMs(pid);
      put(n, "scripted turn p50 (ms)", await turns(targets[n], base[n], 20));
      // 23 turns: 3 untimed, 20 timed (see `turns`).
      put(n, "workerd CPU per turn (ms)", (cpuMs(pid) - cpu0) / 23);
    }
  }
  for (let r = 0; !STATEMENTS && !TURNS && r < ROUNDS; r++) {
    for (const tool of ["bench_read", "bench_write"]) {
      for (let k = 0; k < NAMES.length; k++) {
        const n = NAMES[(k + r) % NAMES.length];
        const seq = await sequential(targets[n], base[n], tool, one[n], 200, undefined, ROW_CALLS);
        put(n, `${tool} p50`, seq.p50);
        put(n, `${tool} rows read per call`, seq.rowsRead);
        put(n, `${tool} rows written per call`, seq.rowsWritten);
        const pid = servers.find((x) => x.spec.name === n).child.pid;
        for (const [set, threads] of [["one thread", one[n]], ["100 threads", hundred[n]]].filter(([set]) => !SETS || set === SETS)) {
          await warm(targets[n], base[n], tool, threads);
          const cpu0 = cpuMs(pid);
          const t0 = performance.now();
          const cps = await throughput(targets[n], base[n], tool, threads, 2000);
          const calls = (cps * (performance.now() - t0)) / 1000;
          const cpu1 = cpuMs(pid);
          put(n, `${tool} cps ${set}`, cps);
          put(n, `${tool} workerd CPU us/call ${set}`, ((cpu1 - cpu0) * 1000) / calls);
        }
      }
    }
  }
  // Where a sequential call's milliseconds go: bare's round trip with and without its one row
  // (the difference is the commit the response waits for: Durable Object output gate).
  const lat = async (f) => {
    const xs = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await f(i);
      xs.push(performance.now() - t0);
    }
    return median(xs);
  };
  for (let r = 0; !STATEMENTS && !TURNS && r < ROUNDS; r++) {
    put("bare", "round trip, no write p50", await lat(() => request(base.bare, "POST", `/threads/${one.bare[0]}/ping`)));
    put("bare", "round trip, one row (one commit) p50", await lat((i) => targets.bare.tool(base.bare, one.bare[0], "bench_read", { n: i, text: "x" })));
  }
  if (!STATEMENTS && !TURNS) for (const m of ["round trip, no write p50", "round trip, one row (one commit) p50"]) console.log(`bare ${m}: ${median(res.bare[m]).toFixed(3)} ms`);
  for (const m of STATEMENTS ? [] : Object.keys(res.weft)) {
    const b = median(res.bare[m]);
    const line = NAMES.slice(1).map((n) => `${n} ${median(res[n][m]).toFixed(2)} (${(median(res[n][m]) / b).toFixed(2)}x)`).join(" · ");
    console.log(`${m}: bare ${b.toFixed(2)} · ${line}  (weft rounds ${res.weft[m].map((v) => v.toFixed(2)).join(" ")})`);
  }
  if (TIMELINE) await timeline(TIMELINE);
} finally {
  closeAll();
  stop();
  rmSync(work, { recursive: true, force: true });
}

/** Prints the statements target `n` runs per sequential call of each tool on one thread, with their rows. */
async function statements(n) {
  const calls = 100;
  for (const tool of ["bench_read", "bench_write"]) {
    for (let i = 0; i < 20; i++) await targets[n].tool(base[n], one[n][0], tool, { n: i, text: "benchmark payload" });
    await request(base[n], "GET", "/__bench/rows?by=statement");
    for (let i = 0; i < calls; i++) await targets[n].tool(base[n], one[n][0], tool, { n: i, text: "benchmark payload" });
    // Background work (an alarm) that the calls set off counts too.
    await new Promise((r) => setTimeout(r, 100));
    const rows = /** @type {{ rowsRead: number, rowsWritten: number, statements: number, byStatement: Record<string, { runs: number, rowsRead: number, rowsWritten: number }> }} */ (await request(base[n], "GET", "/__bench/rows"));
    console.log(`${n} ${tool}: ${(rows.statements / calls).toFixed(2)} statements, ${(rows.rowsRead / calls).toFixed(2)} rows read, ${(rows.rowsWritten / calls).toFixed(2)} written per call (SQL below; the rest is KV and alarms)`);
    for (const [q, d] of Object.entries(rows.byStatement).sort((a, b) => b[1].runs - a[1].runs)) {
      console.log(`  ${(d.runs / calls).toFixed(2)} runs  read ${(d.rowsRead / calls).toFixed(2)}  written ${(d.rowsWritten / calls).toFixed(2)}  ${q.slice(0, 160)}`);
    }
  }
}

/** Profiles weft over sequential calls; prints ms per call by category. */
async function timeline(tool) {
  const list = /** @type {Array<{ webSocketDebuggerUrl: string }>} */ (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json());
  const cdp = await devtools(list[0].webSocketDebuggerUrl);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
  await cdp.send("Profiler.start");
  const calls = 400;
  const t0 = performance.now();
  const s = await sequential(targets.weft, base.weft, tool, one.weft, calls, 0);
  const wall = performance.now() - t0;
  const { profile } = await cdp.send("Profiler.stop");
  cdp.close();
  const parent = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const category = new Map();
  const classify = (id) => {
    if (category.has(id)) return category.get(id);
    const names = [];
    for (let at = id; at !== undefined; at = parent.get(at)) names.push(byId.get(at).callFrame.functionName);
    const own = names[0];
    let c = "other JS";
    if (own === "(idle)") c = "idle (no JS: I/O, storage, RPC transport)";
    else if (own === "(program)") c = "(program) native outside JS";
    else if (own === "(garbage collector)") c = "GC";
    else if (names.includes("callTool")) c = "Durable Object JS (callTool)";
    else if (names.includes("fetch") || names.includes("dispatch")) c = "Worker JS (fetch)";
    category.set(id, c);
    return c;
  };
  const ms = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const c = classify(profile.samples[i]);
    ms.set(c, (ms.get(c) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  }
  console.log(`timeline ${tool}: ${calls} sequential calls, p50 ${s.p50.toFixed(3)} ms, wall ${(wall / calls).toFixed(3)} ms per call`);
  for (const [c, v] of [...ms.entries()].sort((a, b) => b[1] - a[1])) console.log(`  ${(v / calls).toFixed(3)} ms/call  ${c}`);
}
