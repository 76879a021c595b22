// @ts-check
/**
 * The measurements of bench/compare, each a bounded loop over one target: sequential latency,
 * throughput with 16 clients, a scripted turn, cold start after eviction, idle memory, fan-out.
 * @module
 */
import { rssKiB } from "./serve.mjs";
import { subscribe, until } from "./targets.mjs";

/** The q-quantile (0..1) of `values` (nearest rank). */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values) => quantile(values, 0.5);

const input = (n) => ({ n, text: "benchmark payload" });

/** Sequential calls cycling over `threads`; latencies in ms of the calls after `warmup`. */
export async function sequential(t, base, name, threads, calls, warmup = 20) {
  const times = [];
  for (let i = 0; i < calls + warmup; i++) {
    const start = performance.now();
    await t.tool(base, threads[i % threads.length], name, input(i));
    if (i >= warmup) times.push(performance.now() - start);
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

/** Calls/s of 16 clients calling back to back for `ms`; client k starts at thread k. */
export async function throughput(t, base, name, threads, ms, clients = 16) {
  let done = 0;
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      for (let i = k; performance.now() < end; i += clients) {
        await t.tool(base, threads[i % threads.length], name, input(i));
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

/** Median ms of `runs` scripted turns (3 tool calls each) on a fresh thread. */
export async function turns(t, base, runs) {
  const thread = await t.newThread(base);
  const sub = await t.turnSetup(base, thread);
  const times = [];
  try {
    for (let i = 0; i < runs + 3; i++) {
      const start = performance.now();
      await t.turn(base, thread, sub);
      if (i >= 3) times.push(performance.now() - start);
    }
  } finally {
    sub?.ws.close();
  }
  return median(times);
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
 * Fan-out: `sockets` subscribers of one thread, then bursts of `count` events. Events/s counts
 * frames delivered (count x sockets) over the time from the burst request until the last socket
 * has its last event; first event is the median over sockets of the first burst frame's arrival.
 */
export async function fanOut(t, base, sockets, count, bursts) {
  const thread = await t.newThread(base);
  await t.tool(base, thread, "bench_read", input(0));
  const subs = [];
  for (let i = 0; i < sockets; i++) subs.push(await subscribe(t.wsUrl(base, thread)));
  await new Promise((r) => setTimeout(r, 200));
  const rates = [];
  const firsts = [];
  try {
    for (let b = 0; b < bursts; b++) {
      const marks = subs.map((s) => s.frames.length);
      const start = performance.now();
      const sent = t.burst(base, thread, count, "x".repeat(64));
      const arrivals = await Promise.all(
        subs.map((s, i) => {
          // Counted as frames arrive (not by rescanning), so the client's cost per frame stays constant.
          let seen = 0;
          let first = NaN;
          for (let j = marks[i]; j < s.frames.length; j++) if (t.isBurst(s.frames[j]) && ++seen === 1) first = s.times[j];
          let next = s.frames.length;
          return until(
            s,
            () => {
              for (; next < s.frames.length; next++) if (t.isBurst(s.frames[next]) && ++seen === 1) first = s.times[next];
              return seen >= count;
            },
            60_000,
          ).then(() => ({ first: first - start, last: s.times[next - 1] - start }));
        }),
      );
      await sent;
      rates.push((count * sockets) / (Math.max(...arrivals.map((a) => a.last)) / 1000));
      firsts.push(median(arrivals.map((a) => a.first)));
    }
  } finally {
    for (const s of subs) s.ws.close();
  }
  return { eventsPerSecond: median(rates), firstEventMs: median(firsts) };
}
