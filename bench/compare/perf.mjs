#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:perf`: where workerd's CPU per call goes, native code and kernel included, for
 * two bench/compare targets loaded at the same moment (as bench:side-by-side), from Linux `perf`
 * call stacks. A V8 CPU profile sees JavaScript only and charges what runs outside it (the SQLite
 * commit at the end of an event, with its `fsync`) to whichever native function was last on the
 * stack, so it cannot say how much of a call is the commit every target pays.
 *
 * Each sample's stack is placed (the commit of an implicit transaction; a Durable Object's RPC
 * method and the microtasks of that run; the Worker's request handler; elsewhere: the event loop,
 * sockets, work resumed later) and sorted by what its leaf is (SQL, JavaScript, V8's runtime,
 * garbage collection, (de)serialization, allocation, the kernel, other native code). A place's
 * share of the samples times workerd's CPU per call (/proc) gives µs per call. A second drive
 * counts the `fsync` and `pwrite64` system calls per call (commits, and WAL frames written).
 *
 *   npm run bench:perf -- [--a bare] [--b weft] [--base DIR] [--tool bench_read|bench_write] [--threads 100] [--seconds 8]
 *
 * Needs `perf` (Debian: `apt-get install linux-perf`) and permission to trace workerd (root, or
 * `kernel.perf_event_paranoid` <= 1).
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeAll } from "./lib/http.mjs";
import { newThreads, throughput, throughputCost, warm } from "./lib/measure.mjs";
import { freePort, startAll } from "./lib/serve.mjs";
import { sidesOf, targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const TOOL = opt("tool", "bench_read");
const THREADS = Number(opt("threads", "100"));
const SECONDS = Number(opt("seconds", "8"));
const SYSCALL_SECONDS = 3;
const HZ = 999;
const sides = sidesOf(opt, ROOT, { a: "bare", b: "weft" });
if (spawnSync("perf", ["--version"]).status !== 0) {
  console.error("bench:perf needs Linux perf on the PATH (Debian: apt-get install linux-perf)");
  process.exit(1);
}

/** Where a sample's stack ran, first match wins. */
const PLACES = [
  ["commit", /\b(vdbeCommit|sqlite3PagerCommitPhase\w+)\b/],
  ["Durable Object RPC", /JsRpcTargetBase|JsRpcSession|EntrypointJsRpcTarget/],
  ["Worker request", /ServiceWorkerGlobalScope::request|WorkerEntrypoint::request/],
];
/** What a sample's stack was doing (its leaf and what holds it), first match wins. */
const KINDS = [
  ["gc", /Scavenge|MarkCompact|Heap::CollectGarbage|IncrementalMarking|ConcurrentMarking|cppgc::internal::(Marker|Sweeper)/],
  ["sql", /SqlStorage::exec|sqlite3/],
  ["(de)serialize", /ValueSerializer|ValueDeserializer/],
];
/** The leaf frame's kind when no {@link KINDS} entry holds. */
function leafKind(leaf) {
  if (/\[unknown\]|Builtins_/.test(leaf)) return "JavaScript";
  if (/kernel/.test(leaf)) return "kernel";
  if (/tcmalloc|TCMalloc/.test(leaf)) return "malloc";
  if (/v8::/.test(leaf)) return "V8 runtime";
  return "native";
}

/** Samples of a `perf record` file by place and kind. */
function classify(file) {
  const out = spawnSync("perf", ["script", "-i", file, "-F", "tid,ip,sym,dso"], { encoding: "utf8", maxBuffer: 1 << 30 }).stdout;
  /** @type {Map<string, Map<string, number>>} */
  const byPlace = new Map();
  let total = 0;
  for (const sample of out.split(/\n(?=\s*\d+\s*\n)/)) {
    const frames = sample.trim().split("\n").slice(1).map((l) => l.trim());
    if (frames.length === 0) continue;
    const stack = frames.join("\n");
    total++;
    const place = PLACES.find(([, re]) => re.test(stack))?.[0] ?? "elsewhere";
    const kind = place === "commit" ? "" : (KINDS.find(([, re]) => re.test(stack))?.[0] ?? leafKind(frames[0]));
    const kinds = byPlace.get(place) ?? new Map();
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    byPlace.set(place, kinds);
  }
  return { byPlace, total };
}

/** `perf record` of `pid` for `seconds`; resolves when the file is written. */
function record(pid, file, seconds) {
  const child = spawn("perf", ["record", "-F", String(HZ), "-g", "-p", String(pid), "-o", file, "--", "sleep", String(seconds)], { stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", resolve));
}

/** Counts of `fsync` and `pwrite64` made by `pid` over `seconds`. */
function countSyscalls(pid, seconds) {
  const child = spawn("perf", ["stat", "-x", ",", "-e", "syscalls:sys_enter_fsync,syscalls:sys_enter_pwrite64", "-p", String(pid), "--", "sleep", String(seconds)], { stdio: ["ignore", "ignore", "pipe"] });
  let text = "";
  child.stderr.on("data", (d) => (text += d));
  return new Promise((resolve) =>
    child.on("exit", () => resolve(Object.fromEntries(text.trim().split("\n").map((l) => l.split(",")).map(([n, , event]) => [event?.replace("syscalls:sys_enter_", ""), Number(n)])))),
  );
}

const started = [];
const files = sides.map((s) => path.join(tmpdir(), `weft-bench-perf-${process.pid}-${s.label}.data`));
try {
  for (const side of sides) started.push(await startAll(side.root, [{ ...targets[side.name].spec, port: await freePort() }]));
  const servers = started.map((s) => s.servers[0]);
  console.log(`A: ${sides[0].name} from ${sides[0].root} · B: ${sides[1].name} from ${sides[1].root} · ${TOOL}, ${THREADS} thread(s) and 16 clients a side, both at once, ${SECONDS} s under perf at ${HZ} Hz`);
  const threads = [];
  for (const [i, side] of sides.entries()) {
    const made = await newThreads(targets[side.name], servers[i].base, THREADS);
    await warm(targets[side.name], servers[i].base, TOOL, made);
    threads.push(made);
  }
  const drive = (ms) => Promise.all(sides.map((side, i) => throughputCost(targets[side.name], servers[i].base, TOOL, threads[i], ms, servers[i].child.pid)));
  await drive(2000);
  // perf starts a moment late and stops a moment early: its samples are shares, the µs come from /proc.
  const recorded = sides.map((_, i) => record(servers[i].child.pid, files[i], SECONDS - 0.5));
  const costs = await drive(SECONDS * 1000);
  await Promise.all(recorded);
  // The count runs SYSCALL_SECONDS inside a drive a second longer (perf starts a moment late): the
  // calls it saw are the drive's rate over its own window, not the whole drive's calls.
  const counting = sides.map((_, i) => countSyscalls(servers[i].child.pid, SYSCALL_SECONDS));
  const counted = await Promise.all(sides.map((side, i) => throughput(targets[side.name], servers[i].base, TOOL, threads[i], (SYSCALL_SECONDS + 1) * 1000).then((cps) => cps * SYSCALL_SECONDS)));
  const syscalls = await Promise.all(counting);

  /** @type {Array<Map<string, number>>} µs per call by "place" and "place / kind" */
  const perCall = [];
  for (const [i, side] of sides.entries()) {
    const { byPlace, total } = classify(files[i]);
    const cpuUs = (costs[i].cpuMs * 1000) / costs[i].calls;
    const us = (n) => (n / total) * cpuUs;
    const row = new Map();
    console.log(`\n${side.label} ${side.name}: ${costs[i].cps.toFixed(0)} calls/s, ${cpuUs.toFixed(0)} µs CPU per call, ${total} samples; per call ${(syscalls[i].fsync / counted[i]).toFixed(2)} fsync, ${(syscalls[i].pwrite64 / counted[i]).toFixed(2)} pwrite64 (${counted[i].toFixed(0)} calls counted)`);
    const placeTotal = (kinds) => [...kinds.values()].reduce((a, b) => a + b, 0);
    for (const [place, kinds] of [...byPlace].sort((a, b) => placeTotal(b[1]) - placeTotal(a[1]))) {
      row.set(place, us(placeTotal(kinds)));
      const parts = [...kinds].filter(([k]) => k).sort((a, b) => b[1] - a[1]);
      for (const [kind, n] of parts) row.set(`${place} / ${kind}`, us(n));
      console.log(`  ${place.padEnd(20)} ${us(placeTotal(kinds)).toFixed(0).padStart(5)} µs` + (parts.length ? `   ${parts.map(([k, n]) => `${k} ${us(n).toFixed(0)}`).join(" · ")}` : ""));
    }
    perCall.push(row);
  }
  console.log(`\nB - A, µs per call (the largest differences first; noise is a few µs at ${HZ} Hz over ${SECONDS} s):`);
  const keys = new Set([...perCall[0].keys(), ...perCall[1].keys()]);
  const diffs = [...keys].map((k) => [k, (perCall[1].get(k) ?? 0) - (perCall[0].get(k) ?? 0)]).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  for (const [k, d] of diffs.filter(([k]) => !k.includes(" / ")).concat(diffs.filter(([k]) => k.includes(" / ")).slice(0, 12))) console.log(`  ${k.padEnd(36)} ${d >= 0 ? "+" : ""}${d.toFixed(0)}`);
  console.log(`left out: per side one untimed call on each of its ${THREADS} new threads, 2 s of load before perf starts; errors 0 (a failed request stops the run)`);
} finally {
  closeAll();
  for (const s of started) {
    s.stop();
    rmSync(s.work, { recursive: true, force: true });
  }
  for (const f of files) rmSync(f, { force: true });
}
