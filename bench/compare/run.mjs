#!/usr/bin/env node
// @ts-check
/**
 * `npm run bench:compare`: weft beside a bare Worker + Durable Object, the Agents SDK's `Agent` and
 * its `AIChatAgent`, each served by the workerd binary wrangler ships
 * (bench/compare/lib/serve.mjs), on loopback only, every one checking the same API key on every
 * request (weft as deployed, with `WEFT_API_KEYS`), and for the tool calls bare-journaled: bare's
 * object keeping weft's promises for a call the shortest way (the floor they set; each tool line
 * adds weft/bare-journaled). Turns run the baselines' agent loop (the AI SDK's `streamText` with
 * tools) and weft's, with the scripted model and over a fake provider (the OpenAI Responses wire
 * format, served by this process: lib/provider.mjs). Every round runs every measurement on the
 * targets back to back (their order rotating), so drift on a shared machine hits all of them alike;
 * each printed figure is the median over rounds, with CPU and rows (what Cloudflare bills) per call
 * and per turn, and a line of what the harness leaves out.
 * One more server, weft with tracing on (`WEFT_OTLP_URL` naming a collector this process serves on
 * loopback, the default OTLP/HTTP protobuf), runs the scripted turn beside weft with it off in
 * every round, and the turn's figures are printed side by side with their ratio. Writes
 * bench/results/compare-<time>.json, with the commit each measured tree was built from and whether
 * its tracked files had changes.
 *
 *   npm run bench:compare [-- --rounds N] [-- --inspect] [-- --base DIR]
 *
 * --inspect: weft's workerd gets --inspector-addr=127.0.0.1:9229 and waits for Enter before round 1.
 * --base DIR: one more target, weft as built from another checkout (say `git archive <commit>`
 * unpacked, node_modules linked), measured in the same rotation: each line adds its figure and
 * weft/base, which tells a change in weft's code from a change in the machine. DIR is built with
 * this harness's target files (copied over its own), so both carry the same instrumentation.
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeAll, resent } from "./lib/http.mjs";
import { EXPORT_WAIT_MS, startCollector, tracedSpec } from "./lib/collector.mjs";
import { ROW_CALLS, UNTIMED_TURNS, coldStart, fanOut, idleMemory, median, newThreads, sequential, throughput, throughputCost, turnRun, turns, warm } from "./lib/measure.mjs";
import { startProvider } from "./lib/provider.mjs";
import { cpuMs, freePort, startAll, workerdBinary } from "./lib/serve.mjs";
import { targets } from "./lib/targets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
// 5 rounds by default: on a quiet machine one round's weft/bare moves by 10-15% (write p50, one
// thread: 1.72, 1.59, 1.96 in three rounds), enough to move a median of 3 across a target.
const ROUNDS = Number(args[args.indexOf("--rounds") + 1]) > 0 && args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 5;
const INSPECT = args.includes("--inspect");
const BASE = args.includes("--base") ? path.resolve(args[args.indexOf("--base") + 1]) : "";
/**
 * bare-journaled: bare's object keeping weft's promises for a call the shortest way (targets/bare.ts
 * `BENCH_JOURNAL`), the floor those promises set; it runs the tool steps only (its turns and
 * bursts are bare's).
 */
const FLOOR = "bare-journaled";
const NAMES = BASE ? ["bare", FLOOR, "sdk", "chat", "base", "weft"] : ["bare", FLOOR, "sdk", "chat", "weft"];
/** The targets with a tool route (chat, an AIChatAgent, runs turns only). */
const CALLERS = NAMES.filter((n) => n !== "chat");
/** The targets of every step but the tool calls'. */
const WHOLE = NAMES.filter((n) => n !== FLOOR);
targets.base = targets.weft;
const SEQ_CALLS = 200;
// 40: workerd's CPU is read from /proc in 10 ms ticks, so 20 turns of about 7 ms left CPU per turn +-7%.
const TURNS = 40;
const LOAD_MS = 2000;
const WARMUP_MS = 3000;
// After a step that writes to many threads, every target idles this long before the next step:
// weft's watchdog alarms (armed by a call's unfinished row, due WEFT_WATCHDOG_MS = 2 s later, and
// once more 2 s after that on a thread used since) fire then, not inside the next step's
// measurement, where they landed in some rounds and not others. Their CPU is counted as the
// step's own: in its CPU per call (calls/s on 100 threads) or as background CPU per thread.
const SETTLE_MS = 4500;

/** Metric id -> label and which way is better. */
const METRICS = {
  read_p50_one: { label: "read tool p50, one thread, sequential (ms)", better: "lower" },
  read_p50_100: { label: "read tool p50, 100 threads, sequential (ms)", better: "lower" },
  read_p95_100: { label: "read tool p95, 100 threads, sequential (ms)", better: "lower" },
  read_cps_one: { label: "read tool calls/s, one thread, 16 clients", better: "higher" },
  read_cps_100: { label: "read tool calls/s, 100 threads, 16 clients", better: "higher" },
  write_p50_one: { label: "write tool p50, one thread, sequential (ms)", better: "lower" },
  write_p50_100: { label: "write tool p50, 100 threads, sequential (ms)", better: "lower" },
  write_p95_100: { label: "write tool p95, 100 threads, sequential (ms)", better: "lower" },
  write_cps_one: { label: "write tool calls/s, one thread, 16 clients", better: "higher" },
  write_cps_100: { label: "write tool calls/s, 100 threads, 16 clients", better: "higher" },
  read_cpu_one: { label: "read tool workerd CPU per call, one thread, 16 clients (us)", better: "lower" },
  read_cpu_100: { label: "read tool workerd CPU per call, 100 threads, 16 clients (us)", better: "lower" },
  write_cpu_one: { label: "write tool workerd CPU per call, one thread, 16 clients (us)", better: "lower" },
  write_cpu_100: { label: "write tool workerd CPU per call, 100 threads, 16 clients, with the 4.5 s after (us)", better: "lower" },
  write_bg_100: { label: "write tool background CPU in the 4.5 s after sequential calls on 100 threads (ms per thread)", better: "lower" },
  read_rows_r: { label: "read tool rows read per call, one thread", better: "lower" },
  read_rows_w: { label: "read tool rows written per call, one thread", better: "lower" },
  write_rows_r: { label: "write tool rows read per call, one thread", better: "lower" },
  write_rows_w: { label: "write tool rows written per call, one thread", better: "lower" },
  turn_ms: { label: "scripted turn with 3 tool calls, the baselines on the AI SDK's loop, p50 (ms)", better: "lower" },
  turn_cpu: { label: "scripted turn: workerd CPU per turn (ms)", better: "lower" },
  turn_rows_r: { label: "scripted turn: rows read per turn", better: "lower" },
  turn_rows_w: { label: "scripted turn: rows written per turn", better: "lower" },
  model_ms: { label: "turn over the fake provider (OpenAI Responses), 3 tool calls, p50 (ms)", better: "lower" },
  model_cpu: { label: "turn over the fake provider: workerd CPU per turn (ms)", better: "lower" },
  model_rows_r: { label: "turn over the fake provider: rows read per turn", better: "lower" },
  model_rows_w: { label: "turn over the fake provider: rows written per turn", better: "lower" },
  cold_ms: { label: "cold start after eviction, first call (ms)", better: "lower" },
  idle_kib: { label: "idle thread memory (KiB per thread)", better: "lower" },
  fanout_eps: { label: "fan-out to 100 sockets, batched frames, events/s", better: "higher" },
  fanout_first_ms: { label: "fan-out to 100 sockets, batched frames, first event (ms)", better: "lower" },
  fanout1_eps: { label: "fan-out to 100 sockets, one message per event, events/s", better: "higher" },
  fanout1_first_ms: { label: "fan-out to 100 sockets, one message per event, first event (ms)", better: "lower" },
  fanout_cpu: { label: "fan-out to 100 sockets, batched frames, workerd CPU per event delivered (us)", better: "lower" },
  fanout1_cpu: { label: "fan-out to 100 sockets, one message per event, workerd CPU per event delivered (us)", better: "lower" },
};

const started = performance.now();
const collector = await startCollector();
const { collected } = collector;
const provider = await startProvider();
// Every fetch a target makes goes to the fake provider (the traced weft's to the collector).
const outbound = `127.0.0.1:${provider.port}`;
const TRACED = "weft-traced";
const ports = { bare: await freePort(), [FLOOR]: await freePort(), sdk: await freePort(), chat: await freePort(), weft: await freePort(), [TRACED]: await freePort() };
const traced = tracedSpec(targets.weft.spec, collector.port);
const own = await startAll(ROOT, [
  ...["bare", FLOOR, "sdk", "chat", "weft"].map((n) => ({ ...targets[n].spec, outbound, port: ports[n], ...(INSPECT && n === "weft" ? { inspectorPort: 9229 } : {}) })),
  { ...traced, port: ports[TRACED] },
]);
const other = BASE ? await startAll(BASE, [{ ...targets.weft.spec, outbound, port: await freePort() }]) : null;
const servers = [...own.servers, ...(other ? other.servers.map((s) => ({ ...s, spec: { ...s.spec, name: "base" } })) : [])];
const work = own.work;
const stop = () => (own.stop(), other?.stop(), provider.close());
process.on("exit", stop);
const server = Object.fromEntries(servers.map((s) => [s.spec.name, s]));
const WORKERD = execFileSync(workerdBinary(ROOT), ["--version"], { encoding: "utf8" }).trim();

/** The commit a checkout's files were built from and whether tracked files differed from it; null outside a git checkout (a `git archive` base). */
function treeOf(dir) {
  try {
    const git = (...a) => execFileSync("git", a, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (path.resolve(git("rev-parse", "--show-toplevel")) !== path.resolve(dir)) return null;
    return { commit: git("rev-parse", "HEAD"), dirty: git("status", "--porcelain", "--untracked-files=no") !== "" };
  } catch {
    return null;
  }
}
/** What was measured, as built at the start of the run. */
const TREES = { weft: treeOf(ROOT), ...(BASE ? { base: treeOf(BASE) } : {}) };
const treeText = (t) => (t ? `${t.commit.slice(0, 7)}${t.dirty ? " with changes" : ""}` : "not a git checkout");
console.log(`bench:compare: ${NAMES.join(", ")} on ${WORKERD} (wrangler's binary), ${ROUNDS} rounds, weft at ${treeText(TREES.weft)}${BASE ? `, base at ${treeText(TREES.base)}` : ""}, storage in ${work}`);

// Per target: one long-lived thread (it collects calls over the rounds: the flatness check) and 100 threads.
const fixtures = {};
for (const n of CALLERS) {
  const base = server[n].base;
  fixtures[n] = { one: await newThreads(targets[n], base, 1), hundred: await newThreads(targets[n], base, 100) };
}
// Warm-up, not recorded: every target's JIT, caches and SQLite pages reach their steady state
// before round 1, so round 1 -> round N measures a thread growing, not a process warming.
const warmStart = performance.now();
for (const n of NAMES) {
  if (CALLERS.includes(n)) {
    for (const tool of ["bench_read", "bench_write"]) {
      await throughput(targets[n], server[n].base, tool, fixtures[n].one, WARMUP_MS);
      await throughput(targets[n], server[n].base, tool, fixtures[n].hundred, WARMUP_MS);
    }
  }
  if (!WHOLE.includes(n)) continue;
  await turns(targets[n], server[n].base, 5);
  await turns(targets[n], server[n].base, 5, { model: "provider", fake: provider.fake });
}
await turns(targets.weft, server[TRACED].base, 5);
const warmS = (performance.now() - warmStart) / 1000;
console.log(`warm-up: ${warmS.toFixed(0)} s (${WARMUP_MS / 1000} s of 16-client calls per tool and thread set, 8 scripted turns and 8 over the provider, per target; not recorded)`);
if (INSPECT) {
  console.log("weft's workerd listens for the inspector on 127.0.0.1:9229; start a CPU profile, then press Enter");
  await new Promise((r) => process.stdin.once("data", r));
}

/** results[target][metric] = one value per round (none where a target does not run the step) */
const results = Object.fromEntries(NAMES.map((n) => [n, Object.fromEntries(Object.keys(METRICS).map((m) => [m, []]))]));
/** The harness's own CPU during fan-out bursts (1 = one core), per target and round: a figure near 1 would measure the client. */
const clientCpu = Object.fromEntries(NAMES.map((n) => [n, /** @type {number[]} */ ([])]));
/** The harness's own CPU during one-message-per-event bursts. */
const clientCpu1 = Object.fromEntries(NAMES.map((n) => [n, /** @type {number[]} */ ([])]));

/**
 * 16-client calls/s, and the target's workerd CPU time (user + system, /proc) per call meanwhile:
 * the cost of a call, which a loaded machine moves far less than it moves calls/s.
 */
async function load(n, t, base, tool, threads, cps, cpu, settle = false) {
  const pid = server[n].child.pid;
  await warm(t, base, tool, threads);
  const run = await throughputCost(t, base, tool, threads, LOAD_MS, pid);
  const used = run.cpuMs + (settle ? await background(n) : 0);
  cps.push(run.cps);
  cpu.push((used * 1000) / run.calls);
}

/** The target's CPU (ms) over `SETTLE_MS` of no requests. */
async function background(n) {
  const cpu0 = cpuMs(server[n].child.pid);
  await sleep(SETTLE_MS);
  return cpuMs(server[n].child.pid) - cpu0;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Tracing off (weft) beside on (weft-traced): per round, the scripted turn's median ms and workerd CPU per turn. */
const tracing = { off: { turn_ms: [], turn_cpu_ms: [] }, on: { turn_ms: [], turn_cpu_ms: [] } };
// 60: with 20, one round's CPU ratio moved from 0.94 to 1.14 on a quiet machine.
const TRACED_TURNS = 60;

/** The scripted turn on weft with tracing off and on, back to back (which goes first alternates by round). */
async function tracingPair(round) {
  const pair = /** @type {const} */ ([["off", "weft"], ["on", TRACED]]);
  for (const [side, name] of round % 2 === 0 ? pair : [...pair].reverse()) {
    const pid = server[name].child.pid;
    const cpu0 = cpuMs(pid);
    tracing[side].turn_ms.push(await turns(targets.weft, server[name].base, TRACED_TURNS));
    await sleep(EXPORT_WAIT_MS);
    // turns() runs 3 unrecorded turns first; its CPU is spread over all of them (and the export wait's).
    tracing[side].turn_cpu_ms.push((cpuMs(pid) - cpu0) / (TRACED_TURNS + 3));
  }
}

/** The turn measurements: every target runs them (chat runs only these). */
const TURN_STEPS = [["turn", "scripted"], ["model", "provider"]].map(([m, model]) => async (n, t, base, f, r) => {
  const run = await turnRun(t, base, TURNS, { model, fake: provider.fake, pid: server[n].child.pid, rows: true });
  r[`${m}_ms`].push(run.p50);
  r[`${m}_cpu`].push(run.cpuMs);
  r[`${m}_rows_r`].push(run.rowsRead);
  r[`${m}_rows_w`].push(run.rowsWritten);
});

/** The tool calls' steps: sequential and 16-client calls of each tool, on one thread and on 100. */
const TOOL_STEPS = ["read", "write"].flatMap((tool) => [
  async (n, t, base, f, r) => {
    const s = await sequential(t, base, `bench_${tool}`, f.one, SEQ_CALLS, undefined, ROW_CALLS);
    r[`${tool}_p50_one`].push(s.p50);
    r[`${tool}_rows_r`].push(s.rowsRead);
    r[`${tool}_rows_w`].push(s.rowsWritten);
  },
  async (n, t, base, f, r) => {
    const s = await sequential(t, base, `bench_${tool}`, f.hundred, SEQ_CALLS);
    r[`${tool}_p50_100`].push(s.p50);
    r[`${tool}_p95_100`].push(s.p95);
    if (tool === "write") r.write_bg_100.push((await background(n)) / f.hundred.length);
  },
  async (n, t, base, f, r) => load(n, t, base, `bench_${tool}`, f.one, r[`${tool}_cps_one`], r[`${tool}_cpu_one`]),
  async (n, t, base, f, r) => load(n, t, base, `bench_${tool}`, f.hundred, r[`${tool}_cps_100`], r[`${tool}_cpu_100`], tool === "write"),
]);

/** The measurements, in run order; each runs on every target back to back, so drift hits all alike. */
const STEPS = [
  ...TOOL_STEPS,
  ...TURN_STEPS,
  async (n, t, base, f, r) => r.cold_ms.push(await coldStart(t, base, 5)),
  // 200 threads: with 50, allocator and GC swings of a few MiB gave per-thread figures from -28 to 317 KiB.
  async (n, t, base, f, r) => {
    r.idle_kib.push(await idleMemory(t, base, server[n].child.pid, 200));
    await sleep(SETTLE_MS);
  },
  // Each fan-out mode on every target: weft's batched frames (as its own client subscribes) against
  // the baselines' one message per burst, and one message per event on all of them.
  async (n, t, base, f, r) => {
    const out = await fanOut(t, base, 100, 200, 3, true, server[n].child.pid);
    r.fanout_eps.push(out.eventsPerSecond);
    r.fanout_first_ms.push(out.firstEventMs);
    r.fanout_cpu.push(out.serverCpuUs);
    clientCpu[n].push(out.clientCpuShare);
  },
  async (n, t, base, f, r) => {
    const out = await fanOut(t, base, 100, 200, 3, false, server[n].child.pid);
    r.fanout1_eps.push(out.eventsPerSecond);
    r.fanout1_first_ms.push(out.firstEventMs);
    r.fanout1_cpu.push(out.serverCpuUs);
    clientCpu1[n].push(out.clientCpuShare);
  },
];


try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, step] of STEPS.entries()) {
      // The order of targets rotates with every step and round.
      for (const k of NAMES.keys()) {
        const n = NAMES[(k + i + round) % NAMES.length];
        if (!CALLERS.includes(n) && !TURN_STEPS.includes(step)) continue;
        if (!WHOLE.includes(n) && !TOOL_STEPS.includes(step)) continue;
        await step(n, targets[n], server[n].base, fixtures[n], results[n]);
      }
    }
    await tracingPair(round);
    const cps = CALLERS.map((n) => `${n} ${results[n].write_cps_one[round].toFixed(0)}`).join(" · ");
    console.log(`round ${round + 1}/${ROUNDS} done in ${((performance.now() - started) / 1000).toFixed(0)} s; write calls/s one thread: ${cps}`);
  }
} finally {
  closeAll();
  stop();
  collector.close();
  rmSync(work, { recursive: true, force: true });
  if (other) rmSync(other.work, { recursive: true, force: true });
}

/** a / b to two decimals; "n/a" where b is 0 (a baseline with no background work). */
const ratio = (a, b) => (b === 0 ? "n/a" : (a / b).toFixed(2));
const fmt = (v) => (!Number.isFinite(v) ? "n/a" : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const medians = Object.fromEntries(NAMES.map((n) => [n, Object.fromEntries(Object.keys(METRICS).map((m) => [m, median(results[n][m])]))]));
const lines = [];
for (const [m, { label }] of Object.entries(METRICS)) {
  const v = (n) => medians[n][m];
  // Each round's own weft/bare too: how far one round's ratio strays from the median's.
  const perRound = results.weft[m].map((w, i) => ratio(w, results.bare[m][i])).join(" ");
  const besideBase = BASE ? ` · base ${fmt(v("base"))} · base/bare ${ratio(v("base"), v("bare"))} · weft/base ${ratio(v("weft"), v("base"))}` : "";
  // chat (an AIChatAgent) runs turns only; bare-journaled tool calls only.
  const chat = results.chat[m].length > 0;
  const floor = results[FLOOR][m].length > 0 ? ` · ${FLOOR} ${fmt(v(FLOOR))} · weft/${FLOOR} ${ratio(v("weft"), v(FLOOR))}` : "";
  lines.push(
    `${label}: bare ${fmt(v("bare"))} · sdk ${fmt(v("sdk"))}${chat ? ` · chat ${fmt(v("chat"))}` : ""} · weft ${fmt(v("weft"))} · weft/bare ${ratio(v("weft"), v("bare"))} · weft/sdk ${ratio(v("weft"), v("sdk"))}${chat ? ` · weft/chat ${ratio(v("weft"), v("chat"))}` : ""}${floor}${besideBase} · weft/bare by round ${perRound}`,
  );
}
// The flatness check: a long-lived thread's write calls/s (and CPU per call) in round 1, round 3
// and the last round (after the warm-up).
const at = [0, 2, ROUNDS - 1].filter((i, k, all) => i < ROUNDS && all.indexOf(i) === k);
const path3 = (xs) => at.map((i) => fmt(xs[i])).join(" -> ");
const change = (xs, i) => (xs[i] / xs[0]).toFixed(2);
for (const [m, what] of [["write_cps_one", "calls/s"], ["write_cpu_one", "workerd CPU per call (us)"]]) {
  const flat = CALLERS.map((n) => `${n} ${path3(results[n][m])} (${at.slice(1).map((i) => change(results[n][m], i)).join(", ")})`);
  lines.push(`write tool ${what}, one long-lived thread, round ${at.map((i) => i + 1).join(" -> round ")}: ${flat.join(" · ")}`);
}
for (const [m, label] of [["turn_ms", "scripted turn with 3 tool calls (ms)"], ["turn_cpu_ms", "workerd CPU per scripted turn (ms)"]]) {
  const off = median(tracing.off[m]);
  const on = median(tracing.on[m]);
  const perRound = tracing.on[m].map((v, i) => ratio(v, tracing.off[m][i])).join(" ");
  lines.push(`tracing, ${label}: off ${fmt(off)} · on ${fmt(on)} · on/off ${ratio(on, off)} · on/off by round ${perRound}`);
}
lines.push(`tracing: the collector took ${collected.exports} OTLP exports, ${(collected.bytes / 1024).toFixed(0)} KiB, from weft with tracing on`);
// The check of record: each weft/bare against the table in docs/performance.md (worse by more than 5%
// means above it for a lower-is-better figure, below it for a higher-is-better one).
const table = tableRatios(readFileSync(path.join(ROOT, "docs/performance.md"), "utf8"));
const worse = (now, then, better) => (better === "lower" ? now > then * 1.05 : now < then * 0.95);
const checked = Object.entries(METRICS).filter(([m, { label }]) => Number.isFinite(table.get(label)) && medians.bare[m] > 0);
const off = checked.filter(([m, { label, better }]) => worse(medians.weft[m] / medians.bare[m], table.get(label), better));
lines.push(`against docs/performance.md's table: ${checked.length - off.length} of ${checked.length} weft/bare ratios within 5%${off.length ? `; worse: ${off.map(([m, { label }]) => `${m} ${ratio(medians.weft[m], medians.bare[m])} (table ${table.get(label).toFixed(2)})`).join(", ")}` : ""}`);
if (BASE) {
  const behind = Object.entries(METRICS).filter(([m, { better }]) => medians.base[m] > 0 && worse(medians.weft[m] / medians.base[m], 1, better));
  lines.push(`against base (${BASE}): ${Object.keys(METRICS).length - behind.length} of ${Object.keys(METRICS).length} figures within 5%${behind.length ? `; worse: ${behind.map(([m]) => `${m} ${ratio(medians.weft[m], medians.base[m])}`).join(", ")}` : ""}`);
}
lines.push(`fan-out client (this process) CPU during bursts, share of one core, batched / one message per event: ${CALLERS.filter((n) => WHOLE.includes(n)).map((n) => `${n} ${median(clientCpu[n]).toFixed(2)} / ${median(clientCpu1[n]).toFixed(2)}`).join(" · ")}`);
// Cost as Cloudflare bills it: CPU time (ms) and Durable Object rows, per call and per turn.
const ms = (us) => fmt(us / 1000);
const rw = (r, w) => `${fmt(r)} read, ${fmt(w)} written`;
for (const n of NAMES) {
  const v = medians[n];
  const calls = CALLERS.includes(n)
    ? `read call ${ms(v.read_cpu_one)} ms CPU (100 threads ${ms(v.read_cpu_100)}), rows ${rw(v.read_rows_r, v.read_rows_w)}; write call ${ms(v.write_cpu_one)} ms CPU (100 threads, with its background, ${ms(v.write_cpu_100)}), rows ${rw(v.write_rows_r, v.write_rows_w)}; `
    : "";
  const turns = WHOLE.includes(n) ? `scripted turn ${fmt(v.turn_cpu)} ms CPU, rows ${rw(v.turn_rows_r, v.turn_rows_w)}; turn over the provider ${fmt(v.model_cpu)} ms CPU, rows ${rw(v.model_rows_r, v.model_rows_w)}` : "no turns (bare's)";
  lines.push(`cost, ${n}: ${calls}${turns}`);
}
// What no figure includes, so nothing is dropped unsaid (any failed request stops the run: none is
// skipped; one whose kept-alive socket the target had closed is re-sent once, and counted).
const leftOut = {
  warmupSeconds: Math.round(warmS),
  untimedCallsPerSequentialStep: { oneThread: 20, hundredThreads: 100 },
  untimedCallsPerLoadStep: "one per thread",
  untimedTurnsPerTurnStep: UNTIMED_TURNS,
  rowCountingCallsPerOneThreadSequentialStep: ROW_CALLS,
  rowCountingTurnsPerTurnStep: `${TURNS} + ${UNTIMED_TURNS}, on a second fresh thread`,
  untimedWritesPerColdStart: 20,
  roundsDropped: 0,
  errors: 0,
  resentOnClosedSocket: resent.count,
};
lines.push(
  `left out: a warm-up of ${leftOut.warmupSeconds} s; per sequential step the first 20 calls (one thread) or 100 (one per thread, 100 threads); per 16-client step one untimed call per thread; per turn step the first ${UNTIMED_TURNS} turns of its fresh thread; the calls and turns that count rows, untimed (no timed step counts them): ${ROW_CALLS} more calls after each one-thread sequential step, and each turn step's ${UNTIMED_TURNS} + ${TURNS} turns again on a second fresh thread, counted over the same ${TURNS}; per cold start 20 untimed writes; per side of the tracing pair ${UNTIMED_TURNS} untimed turns; rounds dropped 0 of ${ROUNDS}; errors 0 (a failed request stops the run, none is skipped); requests re-sent once because the target had closed their kept-alive socket before any answer: ${resent.count}`,
);
for (const line of lines) console.log(line);

const machine = { workerd: WORKERD, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown", memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1), loadavg: os.loadavg(), node: process.version, platform: `${os.platform()} ${os.release()}` };
const seconds = (performance.now() - started) / 1000;
mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
const file = path.join(ROOT, "bench/results", `compare-${new Date().toISOString().replaceAll(":", "-").slice(0, 19)}.json`);
writeFileSync(file, JSON.stringify({ rounds: ROUNDS, seconds, machine, trees: TREES, ...(BASE ? { base: BASE } : {}), metrics: METRICS, medians, perRound: results, tracing, fanoutClientCpu: { batched: clientCpu, perEvent: clientCpu1 }, leftOut, lines }, null, 2) + "\n");
console.log(`bench:compare: ${seconds.toFixed(0)} s on ${machine.cpus} x ${machine.cpu}; wrote ${path.relative(ROOT, file)}`);

/** The weft/bare column of docs/performance.md's tables, by metric label: the first filled-in row of each. */
function tableRatios(markdown) {
  const out = new Map();
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    // | label | bare | sdk | weft | weft / bare | weft / SDK |, or with an AIChatAgent column after sdk's
    // (and weft / AIChatAgent last).
    const at = cells.length === 8 ? 5 : cells.length === 10 ? 6 : 0;
    if (!at || !Object.values(METRICS).some((m) => m.label === cells[1])) continue;
    // A cell not filled in yet ("-") leaves the label to a later table.
    if (!out.has(cells[1]) && Number.isFinite(Number(cells[at])) && cells[at] !== "") out.set(cells[1], Number(cells[at]));
  }
  return out;
}
