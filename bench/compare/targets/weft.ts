/**
 * The weft target of bench/compare: weft's own Worker over the bench registry (the tools in
 * bench/compare/agents/), run as deployed (the harness sets `WEFT_API_KEYS` and sends the key),
 * plus what the harness needs and the product has no use for: evicting a thread's Durable Object
 * (`ctx.abort()`), so the harness can time a cold start, and the rows every object read and wrote
 * (lib/rows.ts, counted on `ctx.storage` before weft's own constructor runs).
 * @module
 */
import { createWeft } from "../../../src/runtime.js";
import type { WeftEnv } from "../../../src/thread/durable.js";
import { registry } from "../generated/registry.js";
import { countRows, rowsRoute } from "./lib/rows.js";

const weft = createWeft(registry);

export class Thread extends weft.Thread {
  constructor(ctx: DurableObjectState, env: WeftEnv) {
    countRows(ctx);
    super(ctx, env);
  }

  benchEvict(): void {
    this.ctx.abort("bench eviction");
  }
}

export class UserAccount extends weft.UserAccount {
  constructor(ctx: DurableObjectState, env: WeftEnv) {
    countRows(ctx);
    super(ctx, env);
  }
}

export default {
  async fetch(request: Request, env: WeftEnv, ctx: ExecutionContext): Promise<Response> {
    // Only the harness's own routes are looked for here (every other request goes to weft as sent),
    // without parsing each request's URL: bare's URL parse is its whole routing, weft's is its own.
    if (request.url.includes("/__bench/")) {
      const rows = rowsRoute(request);
      if (rows) return rows;
      const evict = /^\/__bench\/evict\/([0-9a-f]{64})$/.exec(new URL(request.url).pathname);
      if (evict) {
        const stub = env.THREAD.get(env.THREAD.idFromString(evict[1]!)) as unknown as { benchEvict(): Promise<void> };
        await stub.benchEvict().catch(() => {});
        return Response.json({ evicted: true });
      }
    }
    return weft.worker.fetch!(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  },
};
