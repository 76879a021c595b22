#!/usr/bin/env node
// @ts-check
/**
 * Cost as a thread grows: one thread per target collects calls (16 clients, the write tool) up
 * to each size in `--sizes`; at each size, rounds alternate 16-client calls/s and workerd CPU per
 * call (/proc) on that big thread and on a fresh one, so what grows with the thread's size shows
 * apart from what grows with the process (heap, other threads, the machine).
 *
 *   node bench/compare/growth.mjs [--targets bare,weft] [--sizes 0,20000,50000,100000] [--tool bench_write] [--ms 2000]
 *     [--rounds 3] [--clutter] [--hold S] [--base DIR] [--profile S]
 *
 * `--base DIR` adds target `base`: weft as built from another checkout (node_modules linked).
 * @module
 */
import { readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { devtools } from "./lib/devtools.mjs";
import { closeAll } from "./lib/http.mjs";
import { coldStart, fanOut, idleMemory, median, throughput, turns } from "./lib/measure.mjs";
import { cpuMs, freePort, startAll } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const BASE = opt("base", "");
const NAMES = opt("targets", BASE ? "bare,base,weft" : "bare,weft").split(",");
targets.base = targets.weft;
const SIZES = opt("sizes", "0,20000,50000,100000").split(",").map(Number);
const TOOL = opt("tool", "bench_write");
const MS = Number(opt("ms", "2000"));
const ROUNDS = Number(opt("rounds", "3"));
// --clutter: before each size after the first, every target also runs bench:compare's other
// steps once (a scripted turn, cold starts, 200 idle threads, fan-out to 100 sockets), so what
// grows with the process rather than the thread shows.
const CLUTTER = args.includes("--clutter");
// --hold S: at the end, S seconds of load on the big thread then S on a fresh one, per target,
// with workerd's pid printed first (to attach strace or perf).
const HOLD = Number(opt("hold", "0"));
// --profile S: at the end, a V8 CPU profile of weft over S seconds on the big thread and on a
// fresh one (workerd --inspector-addr): JavaScript ms per call and the top self-time functions.
const PROFILE = Number(opt("profile", "0"));

const inspectorPort = await freePort();
const here = await startAll(
  ROOT,
  await Promise.all(NAMES.filter((n) => n !== "base").map(async (n) => ({ ...targets[n].spec, port: await freePort(), ...(n === "weft" && PROFILE ? { inspectorPort } : {}) }))),
);
const other = BASE ? await startAll(BASE, [{ ...targets.weft.spec, port: await freePort() }]) : null;
const servers = [...here.servers, ...(other ? other.servers.map((s) => ({ ...s, spec: { ...s.spec, name: "base" } })) : [])];
const stop = () => (here.stop(), other?.stop());
const diskOf = (n) => (n === "base" ? path.join(/** @type {any} */ (other).work, "weft-disk") : path.join(here.work, `${n}-disk`));
const base = Object.fromEntries(servers.map((s) => [s.spec.name, s.base]));
const pid = Object.fromEntries(servers.map((s) => [s.spec.name, s.child.pid]));
/** Bytes of the target's storage folder, by file suffix (.sqlite, -wal, -shm). */
const disk = (n) => {
  const out = {};
  const walk = (d) => {
    for (const f of readdirSync(d)) {
      const p = path.join(d, f);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else {
        const kind = f.endsWith("-wal") ? "wal" : f.endsWith("-shm") ? "shm" : "db";
        out[kind] = (out[kind] ?? 0) + s.size;
      }
    }
  };
  walk(diskOf(n));
  return Object.entries(out).map(([k, v]) => `${k} ${(v / 1e6).toFixed(1)} MB`).join(", ");
};
/** The process's I/O counters (Linux /proc/PID/io): syscalls and bytes read and written. */
const io = (p) => Object.fromEntries(readFileSync(`/proc/${p}/io`, "utf8").trim().split("\n").map((l) => [l.split(":")[0], Number(l.split(":")[1])]));
/** calls/s, CPU us per call, and read/write syscalls and KB per call of 16 clients on `thread` for `ms`. */
async function measure(n, thread, ms) {
  const c0 = cpuMs(pid[n]);
  const io0 = io(pid[n]);
  const t0 = performance.now();
  const cps = await throughput(targets[n], base[n], TOOL, [thread], ms);
  const calls = (cps * (performance.now() - t0)) / 1000;
  const io1 = io(pid[n]);
  const per = (k, d = 1) => (io1[k] - io0[k]) / calls / d;
  return { cps, cpu: ((cpuMs(pid[n]) - c0) * 1000) / calls, calls, syscr: per("syscr"), syscw: per("syscw"), rkb: per("rchar", 1024), wkb: per("wchar", 1024) };
}
try {
  const big = {};
  const size = {};
  for (const n of NAMES) {
    big[n] = await targets[n].newThread(base[n]);
    size[n] = 0;
  }
  console.log(`growth: ${NAMES.join(", ")}; tool ${TOOL}; sizes ${SIZES.join(", ")}; ${ROUNDS} rounds of ${MS} ms per point`);
  for (const [point, target] of SIZES.entries()) {
    for (const n of NAMES) {
      if (CLUTTER && point > 0) {
        const t = targets[n];
        await turns(t, base[n], 20);
        await coldStart(t, base[n], 5);
        await idleMemory(t, base[n], pid[n], 200);
        await fanOut(t, base[n], 100, 200, 3, true);
      }
      while (size[n] < target) size[n] += (await measure(n, big[n], 5000)).calls;
    }
    for (const n of NAMES) {
      const r = { big: [], fresh: [] };
      for (let i = 0; i < ROUNDS; i++) {
        const fresh = await targets[n].newThread(base[n]);
        await throughput(targets[n], base[n], TOOL, [fresh], 200);
        for (const [k, t] of i % 2 ? [["fresh", fresh], ["big", big[n]]] : [["big", big[n]], ["fresh", fresh]]) {
          const m = await measure(n, t, MS);
          r[k].push(m);
          if (k === "big") size[n] += m.calls;
        }
      }
      const f = (xs, k) => median(xs.map((x) => x[k]));
      console.log(
        `${n} thread of ${Math.round(size[n])} calls: big ${f(r.big, "cps").toFixed(0)} calls/s ${f(r.big, "cpu").toFixed(0)} us/call · fresh ${f(r.fresh, "cps").toFixed(0)} calls/s ${f(r.fresh, "cpu").toFixed(0)} us/call · big/fresh CPU ${(f(r.big, "cpu") / f(r.fresh, "cpu")).toFixed(2)} · disk ${disk(n)}`,
      );
      const sys = (k) => ["syscr", "syscw", "rkb", "wkb"].map((m) => `${m} ${f(r[k], m).toFixed(1)}`).join(" ");
      console.log(`  per call: big ${sys("big")} · fresh ${sys("fresh")}`,
      );
    }
  }
  for (const n of NAMES.filter(() => HOLD > 0)) {
    const fresh = await targets[n].newThread(base[n]);
    await throughput(targets[n], base[n], TOOL, [fresh], 200);
    for (const [k, t] of [["big", big[n]], ["fresh", fresh]]) {
      console.log(`hold: ${n} pid ${pid[n]} ${k} thread from ${new Date().toISOString()}`);
      await throughput(targets[n], base[n], TOOL, [t], HOLD * 1000);
    }
    console.log(`hold: done ${new Date().toISOString()}`);
  }
  if (PROFILE && NAMES.includes("weft")) {
    const list = /** @type {Array<{ webSocketDebuggerUrl: string }>} */ (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json());
    const cdp = await devtools(list[0].webSocketDebuggerUrl);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    const fresh = await targets.weft.newThread(base.weft);
    await throughput(targets.weft, base.weft, TOOL, [fresh], 500);
    for (const [k, t] of [["big", big.weft], ["fresh", fresh]]) {
      await cdp.send("Profiler.start");
      const { calls, cpu } = await measure("weft", t, PROFILE * 1000);
      const { profile } = await cdp.send("Profiler.stop");
      console.log(`profile weft ${k} thread: ${cpu.toFixed(0)} us/call workerd CPU; ${jsLines(profile, calls).join("\n  ")}`);
    }
    cdp.close();
  }
} finally {
  closeAll();
  stop();
  for (const w of [here.work, other?.work]) if (w) rmSync(w, { recursive: true, force: true });
}

/** JavaScript (not idle) us per call and the top self-time functions, from a V8 CPU profile. */
function jsLines(profile, calls) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let js = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const f = byId.get(profile.samples[i]).callFrame;
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (f.functionName === "(idle)") continue;
    js += us;
    const key = `${f.functionName || "(anonymous)"}${f.url ? ` ${f.url.split("/").pop()}:${f.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  return [`${(js / calls).toFixed(0)} us/call not idle in the profile`, ...top.map(([k, us]) => `${(us / calls).toFixed(1).padStart(6)} us/call  ${k}`)];
}
