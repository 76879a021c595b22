/**
 * The fuzz target inside workerd: the test worker reached through `exports`, crashes by a real
 * `ctx.abort()`, alarms through `runDurableObjectAlarm`.
 * @module
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { eventsOf, inThread, rawStub, request, stubOf } from "../helpers.js";
import type { FuzzTarget } from "./target.js";

/** The test worker as a fuzz target. */
export const workerdTarget: FuzzTarget = {
  request: (path, init, as) => request(path, init, as),
  crash: async (id) => {
    await inThread(id, (i) => i.ctx.abort("fuzz crash")).catch(() => undefined);
  },
  alarm: async (id) => {
    await runDurableObjectAlarm(rawStub(id)).catch(() => undefined);
  },
  waitIdle: async (id) => {
    await stubOf(id).waitIdle();
  },
  events: (id, since) => eventsOf(id, since),
};
