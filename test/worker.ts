/**
 * The test worker: weft over the registry generated from test/fixtures/ (never agents/). Its Thread
 * crashes itself where a crash plan (test/crash/plan.ts) says, and notes each alarm it finished.
 * @module
 */
import { env as workerEnv } from "cloudflare:workers";
import { createWeft } from "../src/runtime.js";
import type { WeftEnv } from "../src/thread/durable.js";
import type { CrashHook } from "../src/calls/context.js";
import { cut, noteAlarmDone, registerAborter, takeCrash } from "./crash/plan.js";
import { registry } from "./generated/registry.js";
import { enforceRowLimit } from "./row-limit.js";
import { ledger } from "./ledger.js";

/** Test vars of `npm run mcp-exactly-once` and `npm run bfcl -- --via mcp`; unset everywhere else. */
type PeerVars = { WEFT_TEST_CRASH_RATE?: string; WEFT_TEST_MCP_ROUTES?: string; LEDGER: DurableObjectNamespace };

// A `*.mcp.test` host named in WEFT_TEST_MCP_ROUTES (JSON: host -> base URL) is served there, as a
// hosts file would send it: another weft (test/fixtures/mcp/peer.ts) or the BFCL harness's MCP
// server (test/fixtures/mcp/bf.ts). weft's own origin checks ran before this.
const fetchOut = globalThis.fetch;
globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const routes = (workerEnv as unknown as PeerVars).WEFT_TEST_MCP_ROUTES;
  const request = new Request(input, init);
  const url = new URL(request.url);
  const to = routes && url.hostname.endsWith(".mcp.test") ? (JSON.parse(routes) as Record<string, string>)[url.hostname] : undefined;
  if (!to) return fetchOut(request);
  const base = new URL(to);
  url.protocol = base.protocol;
  url.host = base.host;
  return fetchOut(new Request(url, request));
};

const weft = createWeft(registry);

/**
 * The Thread Durable Object class under test: Cloudflare's row limit enforced on its writes, and
 * the crash plans of test/crash/plan.ts consulted at every crash point.
 */
export class Thread extends weft.Thread {
  constructor(ctx: DurableObjectState, env: ConstructorParameters<typeof weft.Thread>[1]) {
    enforceRowLimit(ctx.storage.sql, "Thread");
    super(ctx, env);
  }

  /** Test only: a real restart (`ctx.abort()`): every socket drops at once, a running turn is cut. */
  restartForTest(): void {
    this.ctx.abort("injected crash: the test restarts the thread");
  }

  protected override crashHook(): CrashHook {
    const ctx = this.ctx;
    const threadId = () => (this as unknown as { world: { meta: { threadId: string } } | null }).world?.meta.threadId ?? "";
    return (point, call) => {
      const id = threadId();
      const abort = (reason: string) => ctx.abort(reason);
      registerAborter(id, abort);
      const rate = Number((this.env as unknown as PeerVars).WEFT_TEST_CRASH_RATE ?? 0);
      if (rate > 0 && Math.random() < rate && takeRandomCrash(id)) return randomCrash(this.env as unknown as PeerVars, ctx, point);
      if (!takeCrash(id, point, call.callId)) return;
      // After the result is recorded the crash must find it durable; everywhere else it cuts at once.
      if (point === "after_result") return ctx.storage.sync().then(() => cut(id, point, call.callId, abort, `injected crash at ${point}`));
      cut(id, point, call.callId, abort, `injected crash at ${point}`);
    };
  }

  override async alarm(): Promise<void> {
    await super.alarm();
    const world = (this as unknown as { world: { meta: { threadId: string } } | null }).world;
    if (world) noteAlarmDone(world.meta.threadId);
  }

  /** Test seam (the fuzz against `wrangler dev`): restarts this Durable Object, as a crash would. */
  async testCrash(): Promise<void> {
    this.ctx.abort("fuzz crash");
  }

  /** Test seam: fires the watchdog alarm now. */
  async testAlarm(): Promise<void> {
    await this.alarm();
  }
}

/**
 * Random crashes each thread has had (module memory outlives a reset). At most 2 per thread: a
 * third restart while one call runs (whichever call's point crashed it) is a crash loop, which
 * weft ends on purpose (the call is aborted).
 */
const randomCrashes = new Map<string, number>();
function takeRandomCrash(threadId: string): boolean {
  const had = randomCrashes.get(threadId) ?? 0;
  if (had >= 2) return false;
  randomCrashes.set(threadId, had + 1);
  return true;
}

/**
 * A crash at random (WEFT_TEST_CRASH_RATE, per crash point reached): counted on the ledger as
 * `crashes` first, then the object is reset; after the result, once it is durable, as planned ones are.
 */
async function randomCrash(env: PeerVars, ctx: DurableObjectState, point: string): Promise<void> {
  if (point === "after_result") await ctx.storage.sync();
  await ledger(env).record("crashes");
  ctx.abort(`injected random crash at ${point}`);
}

/** The per-user account Durable Object, under Cloudflare's row limit as threads are. */
export class UserAccount extends weft.UserAccount {
  constructor(ctx: DurableObjectState, env: ConstructorParameters<typeof weft.UserAccount>[1]) {
    enforceRowLimit(ctx.storage.sql, "UserAccount");
    super(ctx, env);
  }
}

/** The deployment's file schedules (src/schedules/deployment.ts). */
export const FileSchedules = weft.FileSchedules;

/**
 * weft's Worker, plus test-only routes outside weft's app, for tests outside workerd:
 * `POST /__test/threads/:id/restart` (or `crash`) aborts that thread's Durable Object, `alarm`
 * fires its watchdog now, `idle` waits until no turn runs.
 */
const TEST_ROUTE = /^\/__test\/threads\/([0-9a-f]{64})\/(restart|crash|alarm|idle)$/;

/** `GET /__test/ledger/:key`: how often the outside ledger saw `key` (test/ledger.ts). */
const LEDGER_ROUTE = /^\/__test\/ledger\/(.+)$/;

export default {
  async fetch(request: Request, env: WeftEnv, ctx: ExecutionContext): Promise<Response> {
    const read = request.method === "GET" ? LEDGER_ROUTE.exec(new URL(request.url).pathname) : null;
    if (read) return Response.json(await ledger(env as unknown as PeerVars).read(decodeURIComponent(read[1]!)));
    const seam = request.method === "POST" ? TEST_ROUTE.exec(new URL(request.url).pathname) : null;
    if (!seam) return weft.worker.fetch(request, env, ctx);
    const stub = env.THREAD.get(env.THREAD.idFromString(seam[1]!)) as unknown as Thread;
    try {
      if (seam[2] === "restart" || seam[2] === "crash") await stub.testCrash();
      else if (seam[2] === "alarm") await stub.testAlarm();
      else await stub.waitIdle();
    } catch (e) {
      // The abort breaks this very call; that is the point.
      if (seam[2] !== "crash" && seam[2] !== "restart") return Response.json({ error: String(e) }, { status: 500 });
    }
    return Response.json(seam[2] === "restart" ? { restarted: true } : { done: seam[2] });
  },
  scheduled: weft.worker.scheduled,
} satisfies ExportedHandler<WeftEnv>;

export { Ledger } from "./ledger.js";
