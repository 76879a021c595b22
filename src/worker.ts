/**
 * The Worker entry for `wrangler dev` and deploys: weft over the registry generated from agents/.
 * @module
 */
import { registry } from "./generated/registry.js";
import { createWeft } from "./runtime.js";

const weft = createWeft(registry);

/** The Thread Durable Object class (binding `THREAD` in wrangler.toml). */
export const Thread = weft.Thread;

/** The UserAccount Durable Object class (binding `ACCOUNT`): per-user env values and thread index. */
export const UserAccount = weft.UserAccount;

/** The FileSchedules Durable Object class (binding `SCHEDULES`): runs `agents/schedules/` after each deploy. */
export const FileSchedules = weft.FileSchedules;

/** The Worker's fetch handler: weft's Hono app (HTTP routes, WebSocket upgrades, MCP) behind authentication. */
export default weft.worker;
