/**
 * When `execute` waits for its journal row's commit: the second half of the effect table
 * (docs/guarantees.md renders {@link renderExitTable} beside the policy table; a test keeps them
 * equal). The pipeline asks {@link journalWait}; nothing else decides it.
 *
 * A Durable Object's output gate holds every message leaving the object until the storage writes
 * made before it are confirmed, and breaks (drops them, resets the object) when a commit fails
 * (Cloudflare's Durable Objects glossary, "output gate":
 * https://developers.cloudflare.com/durable-objects/reference/glossary/). In workerd, a write locks the gate at once (`ActorSqlite::onWrite`,
 * src/workerd/io/actor-sqlite.c++: `outputGate.lockWhile(...)` for a write that must be
 * confirmed), and every way out waits on it (`IoContext::waitForOutputLocks`,
 * src/workerd/io/io-context.c++), cited per row of {@link EFFECT_EXITS}. So a row written, not
 * awaited, before `execute` is durable before any message `execute` sends can leave, and a crash
 * before the commit loses the row and the message together.
 * @module
 */
import { policyFor } from "./policy.js";
import type { Effect } from "./types.js";

/** How the journal row is ordered before an effect leaving one way. */
export type ExitOrder = "output_gate" | "sqlite_order" | "commit_awaited";

/** One way an effect of `execute` leaves the thread, and what puts the journal row first. */
export interface EffectExit {
  /** The way out, as a tool author knows it. */
  exit: string;
  order: ExitOrder;
  /** Where the rule is read: workerd's source (cloudflare/workerd, paths under src/workerd/) or SQLite's. */
  source: string;
}

/** Every way out, in the order docs/guarantees.md lists them. */
export const EFFECT_EXITS: readonly EffectExit[] = [
  { exit: "a response, a WebSocket frame or a streamed chunk to a client", order: "output_gate", source: "api/http.c++ `FetchEvent::respondWith`, api/worker-rpc.c++ (an RPC method's result), api/web-socket.c++ `WebSocket::send`, api/streams/internal.c++ (writes)" },
  { exit: "`fetch` (remote MCP servers, model providers, any URL), a service binding", order: "output_gate", source: "api/http.c++ `fetchImpl`" },
  { exit: "RPC to another Durable Object or Worker", order: "output_gate", source: "api/worker-rpc.c++ (the call is held behind the gate)" },
  { exit: "`connect()` sockets; KV, R2, Queues, Analytics Engine and Cache writes", order: "output_gate", source: "api/sockets.c++, api/kv.c++, api/r2-rpc.c++, api/queue.c++, api/analytics-engine.c++, api/cache.c++" },
  { exit: "the thread's own storage (`state`, `kv`, files, queued and invoked calls, alarms)", order: "sqlite_order", source: "one SQLite database: a later write never commits without the row before it" },
  { exit: "anything, where the host has no output gate (a call world that is not a Durable Object)", order: "commit_awaited", source: "nothing holds the message: `execute` waits for `storage.sync()`" },
];

/** What an order means for `execute`, as docs/guarantees.md says it. */
export const ORDER_TEXT: Readonly<Record<ExitOrder, string>> = {
  output_gate: "held by the output gate until the row is durable: `execute` does not wait",
  sqlite_order: "committed after the row, in order: `execute` does not wait",
  commit_awaited: "`execute` waits for the row's commit",
};

/**
 * What `execute` of a call of class `effect` waits for before it runs:
 * - `nothing`: a read's row is written with its result (a restart runs it again; nothing to order);
 * - `write`: the row is written now, in the same synchronous step, and not awaited: every way out
 *   is held by the output gate or ordered by SQLite behind it;
 * - `commit`: the row is written and `execute` waits for its commit (no output gate).
 * `outputGate`: the host holds outgoing messages until the writes before them are confirmed.
 */
export function journalWait(effect: Effect, outputGate: boolean): "nothing" | "write" | "commit" {
  if (policyFor(effect, "restart_after_journal") === "rerun") return "nothing";
  return outputGate ? "write" : "commit";
}

/** The table of ways out (Markdown) of docs/guarantees.md, rendered from {@link EFFECT_EXITS}. */
export function renderExitTable(): string {
  return [
    "| an effect of `execute` leaves by | the journal row before it | source |",
    "|---|---|---|",
    ...EFFECT_EXITS.map((e) => `| ${e.exit} | ${ORDER_TEXT[e.order]} | ${e.source} |`),
  ].join("\n");
}
