/**
 * The weft target of bench/compare: weft's own Worker over the bench registry (the tools in
 * bench/compare/agents/), plus one route the product has no use for: evicting a thread's Durable
 * Object (`ctx.abort()`), so the harness can time a cold start.
 * @module
 */
import { createWeft } from "../../../src/runtime.js";
import type { WeftEnv } from "../../../src/thread/durable.js";
import { registry } from "../generated/registry.js";

const weft = createWeft(registry);

export class Thread extends weft.Thread {
  benchEvict(): void {
    this.ctx.abort("bench eviction");
  }
}

export const UserAccount = weft.UserAccount;

export default {
  async fetch(request: Request, env: WeftEnv, ctx: ExecutionContext): Promise<Response> {
    // Only the harness's own route is looked for here (every other request goes to weft as sent),
    // without parsing each request's URL: bare's URL parse is its whole routing, weft's is its own.
    const evict = request.url.includes("/__bench/evict/") ? /^\/__bench\/evict\/([0-9a-f]{64})$/.exec(new URL(request.url).pathname) : null;
    if (evict) {
      const stub = env.THREAD.get(env.THREAD.idFromString(evict[1]!)) as unknown as { benchEvict(): Promise<void> };
      await stub.benchEvict().catch(() => {});
      return Response.json({ evicted: true });
    }
    return weft.worker.fetch!(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  },
};
