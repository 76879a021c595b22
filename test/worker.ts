/**
 * The test worker: weft over the registry generated from agents/ plus test/fixtures/.
 * @module
 */
import { createWeft } from "../src/runtime.js";
import { registry } from "./generated/registry.js";
import { enforceRowLimit } from "./row-limit.js";

const weft = createWeft(registry);

/** The Thread Durable Object class under test, with Cloudflare's row limit enforced on its writes. */
export class Thread extends weft.Thread {
  constructor(ctx: DurableObjectState, env: ConstructorParameters<typeof weft.Thread>[1]) {
    enforceRowLimit(ctx.storage.sql, "Thread");
    super(ctx, env);
  }
}

/** The per-user account Durable Object. */
export const UserAccount = weft.UserAccount;

export default weft.worker;

export { Ledger } from "./ledger.js";
