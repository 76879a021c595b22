/**
 * What `POST /threads` asks for, checked and turned into the thread's record before anything is
 * stored: the agent exists, the scripts parse, the env values have their types. The owner is the
 * verified caller.
 * @module
 */
import { WeftError } from "../errors.js";
import { checkStoredBytes } from "../limits.js";
import { newBranchId } from "../calls/call.js";
import { normalizeScript } from "../models/scripted.js";
import { type Registry, agentToRun } from "../run/agent.js";
import type { NewTurnMessage } from "../run/messages.js";
import { checkHistory } from "../run/seed-history.js";
import type { Caller } from "../rpc.js";
import type { CreateThreadInput } from "./api.js";
import type { EnvEntry } from "../secrets/env.js";
import type { ThreadMeta } from "../ports/store.js";
import type { ThreadStore } from "./store/index.js";
import type { Message } from "../protocol.js";

/** A checked creation request: the record, the script steps to queue, the thread's env. */
export interface PreparedThread {
  meta: ThreadMeta;
  script: ReturnType<typeof normalizeScript>;
  env: Map<string, EnvEntry>;
  /** The earlier conversation to store before the first turn (empty for most threads). */
  history: NewTurnMessage[];
}

/**
 * Checks a creation request.
 * @throws WeftError `agent_not_found` (path `agent`), `invalid_request` for a bad script step,
 * `payload_too_large` for `arguments` too large to store, and what `checkHistory` throws for a bad `history`.
 */
export function prepareThread(registry: Registry, caller: Caller, input: CreateThreadInput, threadId: string): PreparedThread {
  const { agentId, agent } = agentToRun(registry, input.agent);
  checkStoredBytes(JSON.stringify(input.arguments ?? {}), ["arguments"]);
  const script = normalizeScript(input.script ?? [], ["script"]);
  const agentScript = normalizeScript(agent.script ?? [], ["agent", "script"]);
  const meta: ThreadMeta = {
    threadId,
    agentId,
    userId: caller.userId,
    createdAt: Date.now(),
    branchId: newBranchId(threadId, input.ephemeral === true),
    arguments: input.arguments ?? {},
    dryRun: input.dryRun === true,
    ephemeral: input.ephemeral === true,
    ...(input.asOf ? { asOf: input.asOf } : {}),
    ...(input.parent ? { parent: input.parent } : {}),
  };
  // A value given as a plain string is a secret (a new env key defaults to secret).
  const env = new Map<string, EnvEntry>(
    Object.entries(input.env ?? {}).map(([k, v]) => [k, typeof v === "string" ? { value: v, type: "secret" } : { value: v.value, type: v.type ?? "secret" }]),
  );
  return { meta, script: [...agentScript, ...script], env, history: checkHistory(input.history ?? []) };
}

/**
 * Stores a checked new thread in one transaction: its record, script, env values, the opening
 * message (queued for the first turn) and the earlier conversation `seeds` (redacted already),
 * whose call ids are reserved so no later call takes one.
 * @returns the stored seed messages, to announce.
 */
export function storeNewThread(store: ThreadStore, thread: Omit<PreparedThread, "history">, opening: string | undefined, seeds: NewTurnMessage[]): Message[] {
  const seeded: Message[] = [];
  store.atomically(() => {
    store.meta.write(thread.meta);
    store.script.add(thread.script);
    for (const [name, v] of thread.env) store.env.set(name, v.value, v.type);
    if (opening !== undefined) store.turns.enqueue({ role: "user", content: opening });
    for (const m of seeds) seeded.push(store.messages.append(m));
    store.messages.reserveCallIds(seeds.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
  });
  return seeded;
}
