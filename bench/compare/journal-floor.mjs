#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:journal-floor`: what weft's promises for a tool call cost by themselves, on 100
 * threads with 16 clients (each call commits alone), for the read and the write tool. Three targets
 * side by side: bare (one row a call), bare-journaled (bare's object keeping weft's promises the
 * shortest way: a read's row with its result and its two events; a write's journal row before the
 * work, the result after it, its two events; targets/bare.ts `BENCH_JOURNAL`) and weft. Rounds
 * rotate the targets; per tool, each prints its median calls/s, workerd CPU per call (user +
 * system, /proc), bytes written per call (/proc's `wchar`: SQLite's WAL frames and the rest), rows
 * written per call, and the median of its per-round ratios to bare.
 *
 * Each round gives every target 100 new threads, so every timed step runs on SQLite logs that are
 * still growing toward their first checkpoint (lib/wal.mjs; each target's largest log is printed):
 * threads kept across rounds put the journaled targets past that checkpoint within a few rounds
 * and bare not, and the step that ran first decided the ratios.
 *
 *   npm run bench:journal-floor -- [--rounds 9] [--seconds 2] [--tools bench_read,bench_write]
 *
 * `--sequential` times calls one at a time instead (bench:compare's "p50, 100 threads" step: one
 * untimed call per thread, then 200 calls cycling over the 100 threads) and prints each target's
 * median p50 and p95 (ms) with the median of its per-round ratios to bare.
 * @module
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeAll } from "./lib/http.mjs";
import { median, newThreads, sequential, throughput, throughputCost, warm } from "./lib/measure.mjs";
import { freePort, startAll, threadStorage } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";
import { AUTOCHECKPOINT_FRAMES, largestLog } from "./lib/wal.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const ROUNDS = Number(opt("rounds", "9"));
const MS = Number(opt("seconds", "2")) * 1000;
/** The tools measured, in this order (`--tools`, comma-separated). */
const TOOLS = opt("tools", "bench_read,bench_write").split(",");
const NAMES = ["bare", "bare-journaled", "weft"];
const THREADS = 100;
const SEQUENTIAL = args.includes("--sequential");

/** Bytes written so far by a process (Linux /proc's `wchar`). */
function written(pid) {
  return Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1]);
}

const { servers, stop, work } = await startAll(ROOT, await Promise.all(NAMES.map(async (n) => ({ ...targets[n].spec, port: await freePort() }))));
const server = Object.fromEntries(servers.map((s) => [s.spec.name, s]));
/** Per target, the most frames any of its threads' logs held after a timed step. */
const logFrames = Object.fromEntries(NAMES.map((n) => [n, 0]));
try {
  for (const tool of TOOLS) await (SEQUENTIAL ? latency(tool) : floor(tool));
  console.log(`largest thread's SQLite log after a timed step, in frames (a checkpoint at ${AUTOCHECKPOINT_FRAMES}): ${NAMES.map((n) => `${n} ${logFrames[n]}`).join(", ")}`);
  console.log(
    `left out: per target and tool, a set of ${THREADS} threads for one warm-up call each, 1 s of 16-client calls and 40 calls on its first thread (the last 20 count rows); per round and target, the making of its ${THREADS} new threads and one call on each before the timed step; rounds dropped 0 of ${ROUNDS}; errors 0 (a failed request stops the run)`,
  );
} finally {
  closeAll();
  stop();
  rmSync(work, { recursive: true, force: true });
}

/** `THREADS` new threads for every target. */
async function threadsFor() {
  return Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, await newThreads(targets[n], server[n].base, THREADS)])));
}

/** One tool's rows written per call, then its rotating rounds, each on new threads; prints a line per target. */
async function floor(tool) {
  /** @type {Record<string, Array<{ cps: number, cpuUs: number, bytes: number }>>} */
  const res = Object.fromEntries(NAMES.map((n) => [n, []]));
  const rowsWritten = {};
  const first = await threadsFor();
  for (const n of NAMES) {
    const t = targets[n];
    const base = server[n].base;
    await warm(t, base, tool, first[n]);
    await throughput(t, base, tool, first[n], 1000);
    // Rows written per call, on one thread after 20 calls there (what Durable Object storage bills).
    for (let i = 0; i < 20; i++) await t.tool(base, first[n][0], tool, { n: i, text: "rows" });
    await t.count(base);
    for (let i = 0; i < 20; i++) await t.tool(base, first[n][0], tool, { n: i, text: "rows" });
    rowsWritten[n] = (await t.rows(base)).rowsWritten / 20;
  }
  for (let round = 0; round < ROUNDS; round++) {
    const threads = await threadsFor();
    for (let k = 0; k < NAMES.length; k++) {
      const n = NAMES[(k + round) % NAMES.length];
      const { pid } = server[n].child;
      await warm(targets[n], server[n].base, tool, threads[n]);
      const bytes0 = written(pid);
      const { cps, calls, cpuMs } = await throughputCost(targets[n], server[n].base, tool, threads[n], MS, pid);
      res[n].push({ cps, cpuUs: (cpuMs * 1000) / calls, bytes: (written(pid) - bytes0) / calls });
      logFrames[n] = Math.max(logFrames[n], largestLog(threadStorage(server[n])));
    }
  }
  console.log(`journal floor: ${tool} on ${THREADS} new threads per round, 16 clients, ${ROUNDS} rounds of ${MS / 1000} s per target`);
  for (const n of NAMES) {
    const r = res[n];
    const ratio = (k) => median(r.map((x, i) => x[k] / res.bare[i][k])).toFixed(2);
    console.log(
      `  ${n}: ${median(r.map((x) => x.cps)).toFixed(0)} calls/s (${ratio("cps")}x bare), ${median(r.map((x) => x.cpuUs)).toFixed(0)} µs CPU per call (${ratio("cpuUs")}x), ${(median(r.map((x) => x.bytes)) / 1024).toFixed(1)} KiB written per call, ${rowsWritten[n].toFixed(2)} rows written per call`,
    );
  }
}

/** One tool's sequential latency on 100 new threads per round and target; prints a line per target. */
async function latency(tool) {
  /** @type {Record<string, Array<{ p50: number, p95: number }>>} */
  const res = Object.fromEntries(NAMES.map((n) => [n, []]));
  const first = await threadsFor();
  for (const n of NAMES) await throughput(targets[n], server[n].base, tool, first[n], 1000);
  for (let round = 0; round < ROUNDS; round++) {
    const threads = await threadsFor();
    for (let k = 0; k < NAMES.length; k++) {
      const n = NAMES[(k + round) % NAMES.length];
      const { p50, p95 } = await sequential(targets[n], server[n].base, tool, threads[n], 200);
      res[n].push({ p50, p95 });
    }
  }
  console.log(`journal floor, sequential: ${tool} on ${THREADS} new threads per round, 100 untimed calls then 200 timed, ${ROUNDS} rounds`);
  for (const n of NAMES) {
    const r = res[n];
    const ratio = (k) => median(r.map((x, i) => x[k] / res.bare[i][k])).toFixed(2);
    const rounds = r.map((x, i) => (x.p50 / res.bare[i].p50).toFixed(2)).join(" ");
    console.log(`  ${n}: p50 ${median(r.map((x) => x.p50)).toFixed(3)} ms (${ratio("p50")}x bare; rounds ${rounds}), p95 ${median(r.map((x) => x.p95)).toFixed(3)} ms (${ratio("p95")}x)`);
  }
}
