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
 * Two phases of a thread's database (lib/wal.mjs), each measured alone: `fresh`, 100 new threads
 * per target and round, whose logs are still growing toward their first checkpoint (a new
 * conversation); `steady`, 100 threads whose logs are past it (a thread's life after its first few
 * MB of writes).
 *
 *   npm run bench:journal-floor -- [--rounds 9] [--seconds 2] [--tools bench_read,bench_write] [--phases fresh,steady]
 * @module
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeAll } from "./lib/http.mjs";
import { median, throughput, warm } from "./lib/measure.mjs";
import { cpuMs, freePort, startAll } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";
import { AUTOCHECKPOINT_FRAMES, checkpointedLogs, pastFirstCheckpoint } from "./lib/wal.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const ROUNDS = Number(opt("rounds", "9"));
const MS = Number(opt("seconds", "2")) * 1000;
/** The tools measured, in this order (`--tools`, comma-separated). */
const TOOLS = opt("tools", "bench_read,bench_write").split(",");
/** The phases measured, in this order (`--phases`, comma-separated). */
const PHASES = opt("phases", "fresh,steady").split(",");
for (const p of PHASES) if (p !== "fresh" && p !== "steady") throw new Error(`--phases: fresh or steady, not ${p}`);
const NAMES = ["bare", "bare-journaled", "weft"];
const THREADS = 100;

/** CPU (user + system, ms: serve.mjs's `cpuMs`) and bytes written so far by a process (Linux /proc's `wchar`). */
function usage(pid) {
  return { cpuMs: cpuMs(pid), written: Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1]) };
}

const { servers, stop, work } = await startAll(ROOT, await Promise.all(NAMES.map(async (n) => ({ ...targets[n].spec, port: await freePort() }))));
const server = Object.fromEntries(servers.map((s) => [s.spec.name, s]));
const leftOut = [];
try {
  const newThreads = async (n) => {
    const made = [];
    for (let i = 0; i < THREADS; i++) made.push(await targets[n].newThread(server[n].base));
    return made;
  };
  /** The steady phase's threads: made, then written to until each one's log is past its first checkpoint. */
  const steady = {};
  if (PHASES.includes("steady")) {
    for (const n of NAMES) {
      steady[n] = await newThreads(n);
      const before = checkpointedLogs(server[n].disk);
      const { ms, bursts } = await pastFirstCheckpoint(server[n].disk, before + THREADS, () => throughput(targets[n], server[n].base, "bench_write", steady[n], 2000));
      leftOut.push(`${n}: ${(ms / 1000).toFixed(0)} s of 16-client writes (${bursts} bursts of 2 s) until ${THREADS} more logs had reached ${AUTOCHECKPOINT_FRAMES} frames`);
    }
  }
  for (const phase of PHASES) {
    for (const tool of TOOLS) await floor(phase, tool, phase === "steady" ? () => steady : async () => Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, await newThreads(n)]))));
  }
  console.log(
    `left out: per target and tool, one warm-up call per thread and 1 s of 16-client calls, 40 calls on one thread (the last 20 count rows), and before each timed step one call per thread; fresh phase: the ${THREADS} threads made per target and round; steady phase: ${leftOut.join("; ")}; rounds dropped 0 of ${ROUNDS}; errors 0 (a failed request stops the run)`,
  );
} finally {
  closeAll();
  stop();
  rmSync(work, { recursive: true, force: true });
}

/**
 * One tool's rows written per call, then its rotating rounds, each on the threads `threadsFor()`
 * gives (per target); prints a line per target.
 * @param {string} phase
 * @param {string} tool
 * @param {() => Promise<Record<string, string[]>> | Record<string, string[]>} threadsFor
 */
async function floor(phase, tool, threadsFor) {
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
      const before = usage(pid);
      const t0 = performance.now();
      const cps = await throughput(targets[n], server[n].base, tool, threads[n], MS);
      const calls = (cps * (performance.now() - t0)) / 1000;
      const after = usage(pid);
      res[n].push({ cps, cpuUs: ((after.cpuMs - before.cpuMs) * 1000) / calls, bytes: (after.written - before.written) / calls });
    }
  }
  console.log(`journal floor, ${phase} threads: ${tool} on ${THREADS} threads, 16 clients, ${ROUNDS} rounds of ${MS / 1000} s per target`);
  for (const n of NAMES) {
    const r = res[n];
    const ratio = (k) => median(r.map((x, i) => x[k] / res.bare[i][k])).toFixed(2);
    console.log(
      `  ${n}: ${median(r.map((x) => x.cps)).toFixed(0)} calls/s (${ratio("cps")}x bare), ${median(r.map((x) => x.cpuUs)).toFixed(0)} µs CPU per call (${ratio("cpuUs")}x), ${(median(r.map((x) => x.bytes)) / 1024).toFixed(1)} KiB written per call, ${rowsWritten[n].toFixed(2)} rows written per call`,
    );
  }
}
