#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:side-by-side`: two builds loaded at the same moment, to tell a change of a few
 * percent of CPU per call from the host's noise. Each side is a bench/compare target built from a
 * checkout (weft from this tree and from `--base DIR`, by default); every round gives each side 100
 * new threads, warms them, then drives both at once with 16 clients each for `--seconds`, and reads
 * each workerd's CPU (user + system, /proc) per call. Both sides share the host's slow and fast
 * moments, so the per-round ratio B/A moves far less than between steps run one after another
 * (identical builds: CPU per call 0.90-1.02 over 6 rounds here, where consecutive steps gave
 * 0.84-1.29). Calls/s is printed too, but both sides share two cores and the harness, so its ratio
 * says little; CPU per call is the figure.
 *
 *   npm run bench:side-by-side -- --base DIR [--a weft] [--b weft] [--tool bench_read|bench_write] [--rounds 6] [--seconds 3]
 *   npm run bench:side-by-side -- --a bare-journaled --b weft      (both from this tree)
 * @module
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeAll } from "./lib/http.mjs";
import { median, newThreads, throughputCost, warm } from "./lib/measure.mjs";
import { freePort, startAll } from "./lib/serve.mjs";
import { sidesOf, targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const TOOL = opt("tool", "bench_read");
const ROUNDS = Number(opt("rounds", "6"));
const MS = Number(opt("seconds", "3")) * 1000;
const THREADS = 100;
const sides = sidesOf(opt, ROOT, { a: "weft", b: "weft" });

const started = [];
try {
  for (const side of sides) started.push(await startAll(side.root, [{ ...targets[side.name].spec, port: await freePort() }]));
  const servers = started.map((s) => s.servers[0]);
  console.log(`A: ${sides[0].name} from ${sides[0].root} · B: ${sides[1].name} from ${sides[1].root} · ${TOOL}, ${THREADS} threads and 16 clients a side, ${ROUNDS} rounds of ${MS / 1000} s`);
  const ratios = { cps: [], cpu: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const threads = [];
    for (const [i, side] of sides.entries()) {
      const t = targets[side.name];
      const made = await newThreads(t, servers[i].base, THREADS);
      await warm(t, servers[i].base, TOOL, made);
      threads.push(made);
    }
    const got = await Promise.all(
      sides.map(async (side, i) => {
        const { cps, calls, cpuMs } = await throughputCost(targets[side.name], servers[i].base, TOOL, threads[i], MS, servers[i].child.pid);
        return { cps, cpuUs: (cpuMs * 1000) / calls };
      }),
    );
    const [a, b] = got;
    ratios.cps.push(b.cps / a.cps);
    ratios.cpu.push(b.cpuUs / a.cpuUs);
    console.log(`round ${round}: A ${a.cps.toFixed(0)} calls/s, ${a.cpuUs.toFixed(0)} µs CPU a call · B ${b.cps.toFixed(0)} calls/s, ${b.cpuUs.toFixed(0)} µs · B/A CPU a call ${ratios.cpu.at(-1).toFixed(3)}, calls/s ${ratios.cps.at(-1).toFixed(3)}`);
  }
  const range = (v) => `${Math.min(...v).toFixed(3)}-${Math.max(...v).toFixed(3)}`;
  console.log(`${TOOL}: B/A CPU per call ${median(ratios.cpu).toFixed(3)} (rounds ${range(ratios.cpu)}), calls/s ${median(ratios.cps).toFixed(3)} (rounds ${range(ratios.cps)}); medians of ${ROUNDS} rounds`);
  console.log(`left out: per round and side one untimed call on each of its ${THREADS} new threads; rounds dropped 0`);
} finally {
  closeAll();
  for (const s of started) {
    s.stop();
    rmSync(s.work, { recursive: true, force: true });
  }
}
