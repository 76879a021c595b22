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
 *
 * An agent with `background: true` does not wait: the call records a background run in the parent
 * (src/background/) and answers at once with its id; the completion comes later as a message.
 * @module
 */
import * as z from "zod";
import { errorMessage, isWeftError } from "../errors.js";
import { isZodSchema } from "../tools/schema.js";
import { limitOf } from "../limits.js";
import type { ToolResult } from "../protocol.js";
import type { ChildAnswer, ThreadOwner } from "../ports/threads.js";
import type { AgentDefinition } from "./agent.js";
import { branchIdOf, callIdOfEffectKey, effectKeyOf } from "../calls/call.js";
import { CallSuspended, markResumable } from "../calls/suspend.js";
import type { LookupResult, ToolCallContext, AnyToolDefinition } from "../tools/types.js";
import type { ThreadState } from "../tools/thread-state.js";
import { runOf } from "./state.js";
import type { RunWorld } from "./world.js";
import { DEFAULT_CALL_ARGS, NESTED_RUN_TIMEOUT_MS, openingMessage } from "./prompt-tool.js";
import { log } from "../log.js";

/** How a child thread's work stands, as its parent asks (defined with the threads port). */
export type { ChildAnswer } from "../ports/threads.js";

/** The parent acts on its child as the parent's owner, who thereby owns the child too. */
export function ownerOf(engine: RunWorld): ThreadOwner {
  return { userId: engine.meta.userId ?? "", name: `thread ${engine.meta.threadId}`, roles: [], admin: false };
}

/** How long a parent's stop waits for its child's stopped turn to end (ms); a child still busy then leaves the call parked. */
const STOP_SETTLE_MS = 2000;

/** Attempts at reaching a child whose object restarts under the parent's wait. */
const CHILD_ATTEMPTS = 5;

/** Other threads and the owner's account: the threads port the thread hands its runs. */
function peersOf(engine: RunWorld): RunWorld["peers"] {
  return engine.peers;
}

/**
 * How the child of the call with `effectKey` stands now (its id is derived from the key alone):
 * `gone` when there is none (deleted by its owner, or never made), null when it cannot be asked.
 */
function childNow(engine: RunWorld, effectKey: string): Promise<ChildAnswer | "gone" | null> {
  const peers = peersOf(engine);
  return Promise.resolve()
    .then(() => peers.answer(ownerOf(engine), peers.childId(effectKey), false))
    .catch((e: unknown) => (isWeftError(e) && e.code === "thread_not_found" ? "gone" : null));
}

/** A child's answer, or null for one that is gone or out of reach. */
const known = (answer: ChildAnswer | "gone" | null): ChildAnswer | null => (answer === "gone" ? null : answer);

/** The tool definition of agent `name`. */
export function agentTool(engine: RunWorld, name: string, agent: AgentDefinition): AnyToolDefinition {
  const def = {
    kind: "tool",
    description: agent.toolDescription ?? agent.description ?? `Runs the ${name} agent`,
    args: (agent.background === "per-call" ? withBackgroundField(agent.args ?? DEFAULT_CALL_ARGS) : (agent.args ?? DEFAULT_CALL_ARGS)) as AnyToolDefinition["args"],
    effect: "reconcilable",
    reconcile: {
      // Found: the child finished. Otherwise running the call again only waits on the same child.
      finality: "final",
      lookup: async (effectKey: string, state: ThreadState): Promise<LookupResult> => {
        const now = await childNow(engine, effectKey);
        const done = known(now);
        // Detached: a child that exists is the run started (recorded again: a crash may have cut it
        // before its row). One gone whose run was recorded was made, and deleted since: told below,
        // as for a waited call; gone with none recorded, it was never made (a crash came first).
        const callId = callIdOfEffectKey(engine.meta, effectKey);
        const wasMade = now === "gone" && engine.schedules?.runs?.startedBy(callId) !== undefined;
        if (detached(agent, engine.store.calls.get(callId)?.input) && !wasMade) return done ? { status: "found", value: startedResult(engine, name, callId, peersOf(engine).childId(effectKey)) } : { status: "not_found" };
        if (runOf(state)?.signal.aborted === true) {
          // Asked at the parent's stop, after stopInside stopped the child's first turn (this call's):
          // stopped, it ended so far. Anything else (still busy, or out of reach) does not tell how
          // this call's work ended: it parks. A first turn that ended before the stop is the call's answer.
          if (done?.status === "stopped") return { status: "found", value: { status: "error", error: `agent "${name}" was stopped with its parent's turn; its answer so far: ${done.answer || "none"}` } };
          if (done?.status !== "completed" && done?.status !== "failed") return { status: "unknown" };
        }
        // Gone (its owner deleted it, or a crash came before it was made): what it did cannot be told, and
        // running the call again would make a new child to do it again.
        if (now === "gone") return { status: "unknown" };
        // After a restart, running the call again rejoins the same child.
        if (!done || done.status === "running" || done.status === "idle" || done.status === "waiting") return { status: "not_found" };
        return { status: "found", value: resultOf(name, done) };
      },
    },
    timeoutMs: NESTED_RUN_TIMEOUT_MS,
    execute: (_state: ThreadState, args: Record<string, unknown>, context: ToolCallContext) => {
      // The per-call choice is the caller's, not the child's: its arguments leave it out.
      const childArgs = agent.background === "per-call" ? Object.fromEntries(Object.entries(args).filter(([key]) => key !== "background")) : args;
      return runChild(engine, name, agent, childArgs, context, detached(agent, args));
    },
  } as AnyToolDefinition;
  return markResumable(def, {
    // While the child waits for a person (or cannot be asked), so does the call.
    stillWaiting: async (callId) => {
      const done = known(await childNow(engine, effectKeyOf(branchIdOf(engine.meta), callId)));
      return !done || done.status === "waiting";
    },
    // The parent's turn stopped: so does the child's, and the call ends once the child's open calls have.
    stopInside: async (callId) => {
      // A background run outlives the turn that started it (it is stopped by its own id).
      if (detached(agent, engine.store.calls.get(callId)?.input)) return;
      const peers = peersOf(engine);
      const childThreadId = peers.childId(effectKeyOf(branchIdOf(engine.meta), callId));
      await peers.stop(ownerOf(engine), childThreadId);
      // Asked without `wait`, which would run work queued behind the stopped turn (another turn's
      // answer is not this call's): a child still busy then is read as unknown, and the call parks.
      for (const until = Date.now() + STOP_SETTLE_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        if (known(await childNow(engine, effectKeyOf(branchIdOf(engine.meta), callId)))?.status !== "running") return;
      }
    },
  });
}

async function runChild(engine: RunWorld, name: string, agent: AgentDefinition, args: Record<string, unknown>, context: ToolCallContext, background: boolean): Promise<ToolResult> {
  const peers = peersOf(engine);
  const childThreadId = peers.childId(context.effectKey);
  const owner = ownerOf(engine);
  // A refusal (a WeftError) is the call's error result; anything else (the RPC itself failed) is thrown, as a failed execute.
  const refused = (e: unknown): ToolResult => {
    if (!isWeftError(e)) throw e;
    return { status: "error", error: `agent "${name}": the child thread could not be created: ${e.code}: ${e.message}` };
  };
  // The first attempt makes the child; a later one (the call going on, or run again after a restart
  // or a failure) only rejoins it: a child gone by then is not made again, which would redo its work.
  const rejoin = context.attempt > 1 && !background;
  // The child is the owner's thread like any other: counted against the per-user limit first.
  const userId = engine.meta.userId;
  try {
    if (userId && !rejoin) await peers.claim(userId, { threadId: childThreadId, agentId: name, createdAt: Date.now() }, limitOf(engine.workerEnv, "threadsPerUser"));
  } catch (e) {
    return refused(e);
  }
  try {
    // Redacted by this thread's secrets, which the child's redactor does not hold: its model and
    // readers would get them as written (a secret a tool briefs the agent with).
    const briefed = engine.redactor().content(args);
    if (!rejoin) await peers.create(owner, childThreadId, {
      agent: name,
      arguments: briefed,
      dryRun: engine.meta.dryRun,
      ...(engine.meta.asOf ? { asOf: engine.meta.asOf } : {}),
      opening: openingMessage(briefed),
      parent: { threadId: engine.meta.threadId, callId: context.callId },
    });
  } catch (e) {
    // A create that made no child took its listing back; one that made it before failing left it
    // listed. One whose answer was lost after it made the child (the RPC failed, not the create)
    // goes on with that child, found by its key, instead of failing with an orphan running.
    if (isWeftError(e) || known(await childNow(engine, context.effectKey)) === null) return refused(e);
  }
  if (background) return startedResult(engine, name, context.callId, childThreadId);
  engine.emit("subagent_started", { callId: context.callId, agentId: name, childThreadId });
  let done: ChildAnswer | null = null;
  let why = "";
  for (let attempt = 1; attempt <= CHILD_ATTEMPTS && !done; attempt++) {
    try {
      const answer = await peers.answer(owner, childThreadId, true);
      // Still under way (a restart cut it, or a decision is resuming it): asked again.
      if (answer.status === "running" || answer.status === "idle") why = `its first turn is ${answer.status}`;
      else done = answer;
    } catch (e) {
      // Gone: what it did cannot be told from here; the call waits for a person to settle it.
      if (isWeftError(e) && e.code === "thread_not_found") throw new CallSuspended(`agent "${name}": its child thread ${childThreadId} is gone (deleted, or never made), so what it did is not known; settle this call`, [childThreadId]);
      // The child's object restarted under the wait; its watchdog resumes it, so wait again.
      why = `it did not answer: ${errorMessage(e)}`;
    }
    if (!done) await new Promise((r) => setTimeout(r, 50 * attempt));
  }
  // Not known yet: the call waits, and goes on when the child tells its parent that its turn ended.
  if (!done) throw new CallSuspended(`agent "${name}" waits on its child thread ${childThreadId} (${why})`, [childThreadId]);
  if (done.status === "waiting") throw new CallSuspended(`agent "${name}" waits for a person in its child thread ${childThreadId}`, [childThreadId]);
  engine.emit("subagent_finished", { callId: context.callId, agentId: name, childThreadId, status: done.status });
  return resultOf(name, done);
}

/** Whether a call of `agent` with `input` (its validated input) runs detached: always with `background: true`, when the call asks with `"per-call"`. */
function detached(agent: AgentDefinition, input: unknown): boolean {
  if (agent.background === true) return true;
  return agent.background === "per-call" && typeof input === "object" && input !== null && (input as { background?: unknown }).background === true;
}

/** The description of the input field `background: "per-call"` adds. */
const BACKGROUND_FIELD = "Run detached: answer at once with a run id; the agent's result comes later as a message";

/** An agent's args with the optional boolean `background` added (a Zod object's `extend`, or a JSON Schema object's property). */
function withBackgroundField(args: NonNullable<AgentDefinition["args"]>): unknown {
  if (isZodSchema(args) && args instanceof z.ZodObject) return args.extend({ background: z.boolean().optional().describe(BACKGROUND_FIELD) });
  const schema = args as { properties?: Record<string, unknown> };
  return { ...schema, properties: { ...schema.properties, background: { type: "boolean", description: BACKGROUND_FIELD } } };
}

/**
 * A background run's call result (`background: true`): the run recorded in this thread
 * (src/background/runs.ts), answered at once with its id; its completion comes later as a message.
 */
function startedResult(engine: RunWorld, name: string, callId: string, childThreadId: string): ToolResult {
  const runs = engine.schedules?.runs;
  if (!runs) return { status: "error", error: `agent "${name}" runs in the background, which this thread cannot do (it has no background runs)` };
  const run = runs.started(callId, name, childThreadId);
  return { status: "success", result: JSON.stringify({ runId: run.runId, agentId: name, childThreadId, status: run.status }) };
}

/**
 * Tells the parent of a child thread that the child's turn ended, so a parent call waiting on it
 * goes on. The parent acts as its owner on the child; the child answers in kind. Best effort: a
 * parent that cannot be reached looks again when anything else wakes it; one that is gone (a
 * refusal) needs no telling.
 */
export async function tellParent(engine: RunWorld): Promise<void> {
  const parent = engine.meta.parent;
  if (!parent || !engine.workerEnv.THREAD) return;
  try {
    await peersOf(engine).tellParent(ownerOf(engine), parent.threadId);
  } catch (e) {
    if (!isWeftError(e)) log("error", `weft: could not tell parent thread ${parent.threadId} that child ${engine.meta.threadId} moved on: ${errorMessage(e)}`);
  }
}

/** The tool result a child's answer becomes. */
function resultOf(name: string, done: ChildAnswer): ToolResult {
  if (done.status === "completed" || (done.status === "stopped" && !done.error)) return { status: "success", result: done.answer };
  return { status: "error", error: `agent "${name}" ${done.status}: ${done.error ?? "no answer"}` };
}
