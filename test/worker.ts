/**
 * The test worker: weft over the registry generated from agents/ plus test/fixtures/.
 * @module
 */
import { createWeft } from "../src/runtime.js";
import { registry } from "./generated/registry.js";

const weft = createWeft(registry);

/** The Thread Durable Object class under test. */
export const Thread = weft.Thread;

/** The per-user account Durable Object. */
export const UserAccount = weft.UserAccount;

export default weft.worker;

export { Ledger } from "./ledger.js";
