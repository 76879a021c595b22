/**
 * Tracing off beside on, alone: weft and weft with `WEFT_OTLP_URL` naming a collector this process
 * serves, the scripted 3-call turn run back to back on each (order alternating by round); prints
 * per round and the medians of turn ms and workerd CPU per turn, and the collector's exports.
 * `bench:compare` runs the same pair inside its rotation; this is the quick check.
 *
 *   npm run bench:tracing [-- --rounds N] [-- --turns N]
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeAll } from "./lib/http.mjs";
import { EXPORT_WAIT_MS, startCollector, tracedSpec } from "./lib/collector.mjs";
import { median, turns } from "./lib/measure.mjs";
import { cpuMs, freePort, startAll } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) && Number(args[args.indexOf(name) + 1]) > 0 ? Number(args[args.indexOf(name) + 1]) : dflt);
const ROUNDS = opt("--rounds", 7);
const TURNS = opt("--turns", 60);

const collector = await startCollector();
const { collected } = collector;
const { servers, work, stop } = await startAll(ROOT, [
  { ...targets.weft.spec, port: await freePort() },
  { ...tracedSpec(targets.weft.spec, collector.port), port: await freePort() },
]);
const [off, on] = servers;
const out = { off: { ms: [], cpu: [] }, on: { ms: [], cpu: [] } };
try {
  for (const s of [off, on]) await turns(targets.weft, s.base, 10);
  for (let round = 0; round < ROUNDS; round++) {
    const pair = [["off", off], ["on", on]];
    for (const [side, s] of round % 2 === 0 ? pair : pair.reverse()) {
      const cpu0 = cpuMs(s.child.pid);
      out[side].ms.push(await turns(targets.weft, s.base, TURNS));
      await new Promise((r) => setTimeout(r, EXPORT_WAIT_MS));
      // turns() runs 3 unrecorded turns first; its CPU is spread over all of them (and the export wait's).
      out[side].cpu.push((cpuMs(s.child.pid) - cpu0) / (TURNS + 3));
    }
    console.log(`round ${round + 1}: turn ms off ${out.off.ms[round].toFixed(2)} on ${out.on.ms[round].toFixed(2)} · CPU ms per turn off ${out.off.cpu[round].toFixed(2)} on ${out.on.cpu[round].toFixed(2)} (on/off ${(out.on.cpu[round] / out.off.cpu[round]).toFixed(2)})`);
  }
} finally {
  closeAll();
  stop();
  collector.close();
  rmSync(work, { recursive: true, force: true });
}
const r = (k) => (median(out.on[k]) / median(out.off[k])).toFixed(2);
console.log(`tracing, ${ROUNDS} rounds of ${TURNS} turns: turn ms on/off ${r("ms")}, workerd CPU per turn on/off ${r("cpu")}; the collector took ${collected.exports} exports, ${(collected.bytes / 1024).toFixed(0)} KiB`);
