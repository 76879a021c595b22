/**
 * The test worker: weft over the registry generated from agents/ plus test/fixtures/.
 * @module
 */
import { createWeft } from "../src/runtime.js";
import type { WeftEnv } from "../src/thread/durable.js";
import { registry } from "./generated/registry.js";
import { enforceRowLimit } from "./row-limit.js";

const weft = createWeft(registry);

/** The Thread Durable Object class under test, with Cloudflare's row limit enforced on its writes. */
export class Thread extends weft.Thread {
  constructor(ctx: DurableObjectState, env: ConstructorParameters<typeof weft.Thread>[1]) {
    enforceRowLimit(ctx.storage.sql, "Thread");
    super(ctx, env);
  }

  /** Test only: a real restart (`ctx.abort()`): every socket drops at once, a running turn is cut. */
  restartForTest(): void {
    this.ctx.abort("injected crash: the test restarts the thread");
  }
}

/** The per-user account Durable Object. */
export const UserAccount = weft.UserAccount;

const RESTART = /^\/__test\/threads\/([0-9a-f]{64})\/restart$/;

/**
 * weft's Worker, plus one test-only route outside weft's app: `POST /__test/threads/:id/restart`
 * aborts that thread's Durable Object (the e2e client tests reconnect across it).
 */
export default {
  async fetch(request: Request, env: WeftEnv, ctx: ExecutionContext): Promise<Response> {
    const restart = request.method === "POST" ? RESTART.exec(new URL(request.url).pathname) : null;
    if (!restart) return weft.worker.fetch(request, env, ctx);
    const stub = env.THREAD.get(env.THREAD.idFromString(restart[1]!)) as unknown as { restartForTest(): Promise<void> };
    // The abort breaks this very call; that is the point.
    await stub.restartForTest().catch(() => undefined);
    return Response.json({ restarted: true });
  },
} satisfies ExportedHandler<WeftEnv>;

export { Ledger } from "./ledger.js";
