/**
 * `createWeft(registry)`: the Worker handler and the Durable Object classes for a registry.
 * A deployment's entry file re-exports them (the classes must be module exports).
 * @module
 */
import { env } from "cloudflare:workers";
import { announceAuth } from "./http/auth.js";
import { createApp } from "./http/app.js";
import { directCatalog } from "./http/direct-call.js";
import { directCallLane } from "./http/direct-lane.js";
import type { Registry } from "./run/agent.js";
import { UserAccount } from "./account/durable.js";
import { accountLogOwner } from "./secrets/account-logs.js";
import { attributeEntries } from "./secrets/log-context.js";
import { type WeftEnv, createThreadClass } from "./thread/durable.js";
import { createFileSchedulesClass, syncFileSchedules } from "./schedules/deployment.js";

// Each entry of a user's account runs as its own work: its console lines pass its own log redactor
// (src/secrets/account-logs.ts). Here, once: src/account/ does not reach src/secrets/.
attributeEntries(UserAccount.prototype, accountLogOwner);

/**
 * Builds weft for the tools and agents of a generated registry.
 * @example
 * const weft = createWeft(registry);
 * export const Thread = weft.Thread;
 * export const UserAccount = weft.UserAccount;
 * export const FileSchedules = weft.FileSchedules;
 * export default weft.worker;
 */
export function createWeft(registry: Registry) {
  const catalog = directCatalog(registry);
  const app = createApp(registry, catalog);
  announceAuth(env as WeftEnv | undefined);
  return {
    Thread: createThreadClass(registry),
    UserAccount,
    /** Runs `agents/schedules/` (binding `SCHEDULES`; src/schedules/deployment.ts). */
    FileSchedules: createFileSchedulesClass(registry),
    worker: {
      fetch: directCallLane(app, catalog),
      // A cron trigger (wrangler.toml `[triggers]`): file schedules are taken up after a deploy with no request.
      scheduled: async (_controller, env) => void (await syncFileSchedules(env, registry)),
    } satisfies ExportedHandler<WeftEnv>,
  };
}
