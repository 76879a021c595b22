/**
 * `createWeft(registry)`: the Worker handler and the Thread Durable Object class for a registry.
 * A deployment's entry file re-exports both (the class must be a module export).
 * @module
 */
import { createApp } from "./http/app.js";
import type { Registry } from "./run/agent.js";
import { type WeftEnv, createThreadClass } from "./thread/durable.js";

/**
 * Builds weft for the tools and agents of a generated registry.
 * @example
 * const weft = createWeft(registry);
 * export const Thread = weft.Thread;
 * export default weft.worker;
 */
export function createWeft(registry: Registry) {
  const app = createApp(registry);
  return {
    Thread: createThreadClass(registry),
    worker: { fetch: app.fetch } satisfies ExportedHandler<WeftEnv>,
  };
}
