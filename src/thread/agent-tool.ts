/**
 * An agent called as a tool (`exposeAsTool`): the call runs the agent in a child thread created
 * with the call's arguments as its `arguments`, and answers with the child's final text.
 *
 * The child's id is derived from the call's `effectKey`, so the call is recoverable like a
 * reconcilable effect: after a restart of the parent, `lookup` finds the child by that key and
 * takes its answer, or `execute` waits on the same child again. A crash of either side never
 * starts a second child; the child's opening message is queued in the same transaction that
 * creates it, and the child's own watchdog finishes its turn.
 *
 * A child that waits for a person (an approval in its thread) makes the parent's call wait too:
 * the call suspends (it is parked, and the parent's turn waits), the child tells its parent when
 * its turn ends, and the parent's call then runs again, taking the child's answer.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { ToolResult } from "../protocol.js";
import type { AgentDefinition } from "../run/agent.js";
import { effectKeyOf } from "../calls/call.js";
import { CallSuspended, markResumable } from "../calls/suspend.js";
import type { LookupResult, ToolCallContext, AnyToolDefinition } from "../tools/types.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { Caller, CreateThreadInput } from "./api.js";
import { type AccountApi, accountOf, claimThread } from "./account.js";
import type { ThreadEngine } from "./engine.js";
import { DEFAULT_CALL_ARGS, NESTED_RUN_TIMEOUT_MS, openingMessage } from "./prompt-tool.js";
import type { RpcResult } from "./rpc.js";
import type { ThreadMeta } from "./store/meta.js";

/** How a child thread's work stands, as its parent asks. */
export interface ChildAnswer {
  status: "completed" | "stopped" | "failed" | "waiting" | "running" | "idle";
  /** The child's final text (its side a's last answer). */
  answer: string;
  error?: string;
}

/** The part of a Thread stub the parent uses. */
interface ChildStub {
  create(caller: Caller, input: CreateThreadInput, threadId: string): Promise<RpcResult<ThreadMeta>>;
  childAnswer(caller: Caller, wait: boolean): Promise<RpcResult<ChildAnswer>>;
}

/** The parent acts on its child as the parent's owner, who thereby owns the child too. */
function ownerOf(engine: ThreadEngine): Caller {
  return { userId: engine.meta.userId ?? "", name: `thread ${engine.meta.threadId}`, roles: [], admin: false };
}

/** Attempts at reaching a child whose object restarts under the parent's wait. */
const CHILD_ATTEMPTS = 5;

/** The child thread of the call with `effectKey`; its name is derived from the key alone. */
function childOf(engine: ThreadEngine, effectKey: string): { id: DurableObjectId; stub: ChildStub } {
  const ns = engine.workerEnv.THREAD as DurableObjectNamespace | undefined;
  if (!ns) throw new WeftError("capability_missing", "agents called as tools need the THREAD Durable Object binding");
  const id = ns.idFromName(`child:${effectKey}`);
  return { id, stub: ns.get(id) as unknown as ChildStub };
}

/** The tool definition of agent `name`. */
export function agentTool(engine: ThreadEngine, name: string, agent: AgentDefinition): AnyToolDefinition {
  const def = {
    kind: "tool",
    description: agent.toolDescription ?? agent.description ?? `Runs the ${name} agent`,
    args: (agent.args ?? DEFAULT_CALL_ARGS) as AnyToolDefinition["args"],
    effect: "reconcilable",
    reconcile: {
      // Found: the child finished. Otherwise running the call again only waits on the same child.
      finality: "final",
      lookup: async (effectKey: string): Promise<LookupResult> => {
        const done = unwrap(await childOf(engine, effectKey).stub.childAnswer(ownerOf(engine), false).catch(() => null));
        if (!done || done.status === "running" || done.status === "idle" || done.status === "waiting") return { status: "not_found" };
        return { status: "found", value: resultOf(name, done) };
      },
    },
    timeoutMs: NESTED_RUN_TIMEOUT_MS,
    execute: (_state: ThreadState, args: Record<string, unknown>, context: ToolCallContext) => runChild(engine, name, args, context),
  } as AnyToolDefinition;
  return markResumable(def, {
    // While the child waits for a person (or cannot be asked), so does the call.
    stillWaiting: async (callId) => {
      const done = await childOf(engine, effectKeyOf(engine.meta.threadId, callId)).stub.childAnswer(ownerOf(engine), false).catch(() => null);
      return !done || !done.ok || done.value.status === "waiting";
    },
  });
}

async function runChild(engine: ThreadEngine, name: string, args: Record<string, unknown>, context: ToolCallContext): Promise<ToolResult> {
  const { id, stub } = childOf(engine, context.effectKey);
  const childThreadId = id.toString();
  // The child is the owner's thread like any other: counted against the per-user limit first.
  const listed = await listChild(engine, name, childThreadId);
  if (!listed.ok) return { status: "error", error: `agent "${name}": the child thread could not be created: ${listed.error.code}: ${listed.error.message}` };
  const created = await stub.create(
    ownerOf(engine),
    {
      agent: name,
      arguments: args,
      dryRun: engine.meta.dryRun,
      ...(engine.meta.asOf ? { asOf: engine.meta.asOf } : {}),
      opening: openingMessage(args),
      parent: { threadId: engine.meta.threadId, callId: context.callId },
    },
    childThreadId,
  );
  if (!created.ok && created.error.code !== "thread_exists") {
    await unlistChild(engine, childThreadId);
    return { status: "error", error: `agent "${name}": the child thread could not be created: ${created.error.code}: ${created.error.message}` };
  }
  engine.emit("subagent_started", { callId: context.callId, agentId: name, childThreadId });
  let done: ChildAnswer | null = null;
  let lastError = "";
  for (let attempt = 1; attempt <= CHILD_ATTEMPTS && !done; attempt++) {
    try {
      done = unwrap(await stub.childAnswer(ownerOf(engine), true));
    } catch (e) {
      // The child's object restarted under the wait; its watchdog resumes it, so wait again.
      lastError = errorMessage(e);
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
  if (!done) done = { status: "failed", answer: "", error: `the child thread did not answer: ${lastError}` };
  if (done.status === "waiting") throw new CallSuspended(`agent "${name}" waits for a person in its child thread ${childThreadId}`, [childThreadId]);
  engine.emit("subagent_finished", { callId: context.callId, agentId: name, childThreadId, status: done.status });
  return resultOf(name, done);
}

/** The owner's account, where a child thread is listed; none without an owner or accounts. */
function accountOfOwner(engine: ThreadEngine): AccountApi | null {
  const ns = engine.workerEnv.ACCOUNT as DurableObjectNamespace | undefined;
  return ns && engine.meta.userId ? accountOf(ns, engine.meta.userId) : null;
}

/** Lists a child thread in its owner's account, counted against the per-user limit ({@link claimThread}). */
async function listChild(engine: ThreadEngine, name: string, childThreadId: string): Promise<RpcResult<null>> {
  const account = accountOfOwner(engine);
  if (!account) return { ok: true, value: null };
  return claimThread(account, engine.workerEnv, { threadId: childThreadId, agentId: name, createdAt: Date.now() });
}

/** Takes back the listing of a child thread whose create failed. */
async function unlistChild(engine: ThreadEngine, childThreadId: string): Promise<void> {
  await accountOfOwner(engine)?.removeThread(childThreadId);
}

/**
 * Tells the parent of a child thread that the child's turn ended, so a parent call waiting on it
 * goes on. The parent acts as its owner on the child; the child answers in kind. Best effort: a
 * parent that cannot be reached looks again when anything else wakes it.
 */
export async function tellParent(engine: ThreadEngine): Promise<void> {
  const parent = engine.meta.parent;
  const ns = engine.workerEnv.THREAD as DurableObjectNamespace | undefined;
  if (!parent || !ns) return;
  const stub = ns.get(ns.idFromString(parent.threadId)) as unknown as { childChanged(caller: Caller): Promise<RpcResult<null>> };
  try {
    await stub.childChanged(ownerOf(engine));
  } catch (e) {
    console.error(`weft: could not tell parent thread ${parent.threadId} that child ${engine.meta.threadId} moved on: ${errorMessage(e)}`);
  }
}

/** The tool result a child's answer becomes. */
function resultOf(name: string, done: ChildAnswer): ToolResult {
  if (done.status === "completed" || (done.status === "stopped" && !done.error)) return { status: "success", result: done.answer };
  return { status: "error", error: `agent "${name}" ${done.status}: ${done.error ?? "no answer"}` };
}

function unwrap<T>(result: RpcResult<T> | null): T | null {
  if (!result) return null;
  if (!result.ok) throw new WeftError(result.error.code, result.error.message, result.error.details);
  return result.value;
}
