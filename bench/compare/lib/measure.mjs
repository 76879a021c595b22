// @ts-check
/**
 * The measurements of bench/compare, each a bounded loop over one target: sequential latency,
 * throughput with 16 clients, a scripted turn, cold start after eviction, idle memory, fan-out.
 * @module
 */
import { scriptTurn, freshKey } from "./provider.mjs";
import { cpuMs, cpuMsPrecise, rssKiB } from "./serve.mjs";
import { countingSocket } from "./ws-count.mjs";

/** The q-quantile (0..1) of `values` (nearest rank). */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values) => quantile(values, 0.5);

const input = (n) => ({ n, text: "benchmark payload" });

/**
 * Rows the target's objects read and wrote during `work` (NaN where it cannot say). Counting is on
 * only meanwhile: a counted SQL cursor costs a few µs, and the targets run different numbers of
 * statements, so no timed step runs with it.
 */
async function countedRows(t, base, work) {
  if (!t.count) return { rowsRead: NaN, rowsWritten: NaN };
  await t.count(base);
  await work();
  return t.rows(base);
}

/** Untimed calls after a sequential step, whose rows give its rows per call. */
export const ROW_CALLS = 20;

/**
 * Sequential calls cycling over `threads`; latencies in ms of the calls after `warmup` (by default
 * 20, and at least one per thread: see {@link warm}). With `rowCalls`, that many more calls follow,
 * untimed, with rows counted: the rows read and written per call.
 */
export async function sequential(t, base, name, threads, calls, warmup = Math.max(20, threads.length), rowCalls = 0) {
  const times = [];
  let i = 0;
  for (; i < calls + warmup; i++) {
    const start = performance.now();
    await t.tool(base, threads[i % threads.length], name, input(i));
    if (i >= warmup) times.push(performance.now() - start);
  }
  const rows = rowCalls ? await countedRows(t, base, async () => {
    for (const end = i + rowCalls; i < end; i++) await t.tool(base, threads[i % threads.length], name, input(i));
  }) : { rowsRead: NaN, rowsWritten: NaN };
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), rowsRead: rows.rowsRead / rowCalls, rowsWritten: rows.rowsWritten / rowCalls };
}

/**
 * Calls/s of 16 clients calling back to back for `ms`, on threads that are live (call {@link warm}
 * first); client k starts at thread k. Divided by the
 * time until the last call in flight at the end returned (not by `ms`), so those calls count
 * without their time being left out (that favoured the slower target).
 */
export async function throughput(t, base, name, threads, ms, clients = 16) {
  let done = 0;
  const start = performance.now();
  const end = start + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      for (let i = k; performance.now() < end; i += clients) {
        await t.tool(base, threads[i % threads.length], name, input(i));
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/**
 * {@link throughput} with what it cost the target: the calls made and the CPU time (ms, user +
 * system, /proc) of its workerd process `pid` meanwhile.
 * @returns {Promise<{ cps: number, calls: number, cpuMs: number }>}
 */
export async function throughputCost(t, base, name, threads, ms, pid) {
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const cps = await throughput(t, base, name, threads, ms);
  return { cps, calls: (cps * (performance.now() - t0)) / 1000, cpuMs: cpuMs(pid) - cpu0 };
}

/** `count` new threads of target `t`, made one after another. */
export async function newThreads(t, base, count) {
  const made = [];
  for (let i = 0; i < count; i++) made.push(await t.newThread(base));
  return made;
}

/**
 * One call on every thread, not timed. Local workerd evicts a Durable Object after about 10 s
 * without requests (a first call after 15 s idle took 1.9-2.7 ms on bare, 3.4-4.2 on weft, against
 * about 1 ms warm), where Cloudflare keeps it for a minute or more; a set of 100 threads last used
 * a step ago would otherwise time a cold start on each thread's first call. Cold starts have a
 * metric of their own.
 */
export async function warm(t, base, name, threads) {
  for (const [i, thread] of threads.entries()) await t.tool(base, thread, name, input(i));
}

/** Turns left out at the start of every turn measurement (the thread's first turns). */
export const UNTIMED_TURNS = 3;

/**
 * `runs` turns with 3 tool calls each, one after another on a fresh thread, after
 * {@link UNTIMED_TURNS} untimed ones: their median ms (`p50`), and per turn over the same turns
 * the target's workerd CPU ms (`cpuMs`, when `pid` is given). With `rows`, the same turns are
 * played again on another fresh thread, untimed, with rows counted over the same turns: the rows
 * its objects read and wrote per turn. `model`: `scripted` (the target's own scripted model) or
 * `provider` (the fake provider `fake`, scripted before each turn for the thread's own key).
 * @param {{ model?: "scripted" | "provider", fake?: any, pid?: number, rows?: boolean }} [opts]
 */
export async function turnRun(t, base, runs, { model = "scripted", fake = null, pid = 0, rows = false } = {}) {
  let cpu0 = 0;
  const { times } = await playTurns(t, base, runs, model, fake, async () => {
    if (pid) cpu0 = cpuMs(pid);
  });
  const cpu = pid ? (cpuMs(pid) - cpu0) / runs : NaN;
  const counted = rows && t.count ? (await playTurns(t, base, runs, model, fake, () => t.count(base), () => t.rows(base))).end : { rowsRead: NaN, rowsWritten: NaN };
  return { p50: median(times), cpuMs: cpu, rowsRead: counted.rowsRead / runs, rowsWritten: counted.rowsWritten / runs };
}

/**
 * Plays {@link UNTIMED_TURNS} + `runs` turns on a fresh thread: `atTimed` runs before the first
 * timed turn and `atEnd` after the last, before the thread's socket closes. The timed turns' ms.
 */
async function playTurns(t, base, runs, model, fake, atTimed, atEnd = async () => undefined) {
  const key = model === "provider" ? freshKey() : "";
  const thread = await t.newThread(base, key);
  const sub = await t.turnSetup(base, thread);
  const times = [];
  try {
    for (let i = 0; i < runs + UNTIMED_TURNS; i++) {
      if (i === UNTIMED_TURNS) await atTimed();
      if (model === "provider") scriptTurn(fake, key);
      const start = performance.now();
      await t.turn(base, thread, sub, { model, key });
      if (i >= UNTIMED_TURNS) times.push(performance.now() - start);
    }
    return { times, end: await atEnd() };
  } finally {
    sub?.ws.close();
    // The fake keeps every request it saw; nothing here reads them.
    if (fake) fake.requests.length = fake.outbound.length = 0;
  }
}

/** Median ms of `runs` scripted turns (3 tool calls each) on a fresh thread ({@link turnRun}). */
export async function turns(t, base, runs, opts) {
  return (await turnRun(t, base, runs, opts)).p50;
}

/** Median ms of the first call after the thread's Durable Object was evicted. */
export async function coldStart(t, base, runs) {
  const thread = await t.newThread(base);
  for (let i = 0; i < 20; i++) await t.tool(base, thread, "bench_write", input(i));
  const times = [];
  for (let i = 0; i < runs; i++) {
    await t.evict(base, thread);
    await new Promise((r) => setTimeout(r, 50));
    const start = performance.now();
    await t.tool(base, thread, "bench_read", input(i));
    times.push(performance.now() - start);
  }
  return median(times);
}

/** KiB of resident memory per thread: workerd's RSS growth over `count` new threads, each made and called once. */
export async function idleMemory(t, base, pid, count) {
  const before = rssKiB(pid);
  for (let i = 0; i < count; i++) await t.tool(base, await t.newThread(base), "bench_write", input(0));
  await new Promise((r) => setTimeout(r, 200));
  return (rssKiB(pid) - before) / count;
}

/**
 * Fan-out: `sockets` subscribers of one thread (`batch`: each asks for batched frames), then
 * bursts of `count` events. Events/s counts
 * events delivered (count x sockets) over the time from the burst request until the last socket
 * has its last event; first event is the median over sockets of the first burst event's arrival.
 * The subscribers are byte-counting clients (ws-count.mjs), cheap enough per frame that the
 * figure is the server's sending, not the client's receiving; `clientCpuShare` says how busy the
 * client process was meanwhile (1 = one core), so a client-bound figure shows. With the target's
 * workerd `pid`, `serverCpuUs` is its CPU time (its threads' time on a CPU, at nanosecond
 * resolution: `cpuMsPrecise`) per event delivered over the bursts, from each burst's request to
 * its last event: what the sending cost, however fast the client read.
 */
export async function fanOut(t, base, sockets, count, bursts, batch = false, pid = 0) {
  const thread = await t.newThread(base);
  await t.tool(base, thread, "bench_read", input(0));
  const subs = [];
  for (let i = 0; i < sockets; i++) subs.push(await countingSocket(t.wsUrl(base, thread, batch), BURST_MARKER));
  await new Promise((r) => setTimeout(r, 200));
  const rates = [];
  const firsts = [];
  let cpu = 0;
  let wall = 0;
  let serverMs = 0;
  try {
    for (let b = 0; b < bursts; b++) {
      const marks = subs.map((s) => s.events);
      const server0 = pid ? cpuMsPrecise(pid) : 0;
      const cpu0 = process.cpuUsage();
      const start = performance.now();
      const sent = t.burst(base, thread, count, "x".repeat(64));
      const arrivals = await Promise.all(
        subs.map(
          (s, i) =>
            new Promise((resolve, reject) => {
              let first = NaN;
              const timer = setTimeout(() => reject(new Error(`fan-out: socket ${i} got ${s.events - marks[i]} of ${count} events in 60 s`)), 60_000);
              s.onRead = (at) => {
                if (Number.isNaN(first) && s.events > marks[i]) first = at;
                if (s.events - marks[i] < count) return;
                s.onRead = null;
                clearTimeout(timer);
                resolve({ first: first - start, last: at - start });
              };
            }),
        ),
      );
      await sent;
      if (pid) serverMs += cpuMsPrecise(pid) - server0;
      const used = process.cpuUsage(cpu0);
      wall += performance.now() - start;
      cpu += (used.user + used.system) / 1000;
      // Every socket got each event once: none more (a duplicate would have counted as an event).
      await new Promise((r) => setTimeout(r, 20));
      const extra = subs.findIndex((s, i) => s.events - marks[i] !== count);
      if (extra >= 0) throw new Error(`fan-out: socket ${extra} got ${subs[extra].events - marks[extra]} events of a burst of ${count}`);
      rates.push((count * sockets) / (Math.max(...arrivals.map((a) => a.last)) / 1000));
      firsts.push(median(arrivals.map((a) => a.first)));
    }
  } finally {
    for (const s of subs) s.close();
  }
  return { eventsPerSecond: median(rates), firstEventMs: median(firsts), clientCpuShare: cpu / wall, serverCpuUs: pid ? (serverMs * 1000) / (count * sockets * bursts) : NaN };
}

/** Each burst event of every target carries this once (its JSON frame's `type`). */
const BURST_MARKER = '"type":"burst"';
