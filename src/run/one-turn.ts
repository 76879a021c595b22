/**
 * One turn from start to end, and the inbox's way into the history: what `TurnRunner` schedules.
 * A turn is begun (or resumed) in the store, run by the model loop with an `Execution` of its own,
 * and ended with its record and `turn_finished`; a turn that waits for a person is left waiting.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { Message } from "../protocol.js";
import { Execution } from "./execution.js";
import { resumePoint } from "./sides.js";
import { type TurnEnd, failedTurn, runTurn } from "./turn.js";
import { tellParent } from "./agent-tool.js";
import { closeOpenStep } from "./close-step.js";
import type { RunWorld } from "./world.js";
import { conversationWindow } from "./history.js";
import { fallbacksFor, modelFor } from "./model-choice.js";
import type { TurnRecord } from "../ports/store.js";
import { turnConversation } from "./conversation.js";
import type { TurnModelSettings } from "../models/settings.js";
import { admittedMessage, settingsOfMessages } from "./turn-settings.js";
import { cutByStop, refusedMessageIndex } from "./hook-calls.js";
import { log } from "../log.js";
import { keptText } from "../kept-text.js";

/** What the scheduler lends one turn: the watchdog, and a place to hold the turn's execution so `stop` can reach it. */
export interface TurnSlot {
  /** Arms the watchdog alarm that resumes this turn if a restart cuts it. */
  armWatchdog(): void;
  /**
   * The turn runs: `kept` is the stop its admission kept with it, or for a `resumed` turn the one
   * its row keeps (read here). Returns why a stop was asked of it, if one was (it then runs stopped).
   */
  begun(turnId: string, resumed: boolean, kept?: string): string | undefined;
  /** The turn's execution once it exists, and null once the turn's run is over. */
  hold(execution: Execution | null): void;
}

/** A turn its messages' admission began ({@link admitInbox}): its id, the settings they gave it, and a stop kept with them. */
export interface AdmittedTurn {
  turnId: string;
  settings?: TurnModelSettings;
  stopAsked?: string;
}

/**
 * Runs one turn: `from` is a turn to resume (cut by a restart, or back from a person's decision),
 * or the turn its messages' admission began. Never throws: a model that cannot be made fails the
 * turn, which says why.
 */
export async function runOneTurn(engine: RunWorld, slot: TurnSlot, from: TurnRecord | AdmittedTurn): Promise<TurnEnd> {
  const { store } = engine;
  const resume = "status" in from ? from : undefined;
  const admitted = resume ? undefined : (from as AdmittedTurn);
  const settings = resume ? resume.modelSettings : admitted!.settings;
  const { turnId } = from;
  if (resume) {
    store.turns.setStatus(turnId, "running");
    slot.armWatchdog();
  }
  slot.begun(turnId, resume !== undefined, admitted?.stopAsked);
  engine.emit("turn_started", { turnId, ...(resume ? { resumed: true } : {}) });
  const steps = resume?.steps ?? 0;
  let end: TurnEnd;
  // Whether the turn's execution was made: a turn ended before (a failure, or a stop asked of it) closes its open step here.
  let made = false;
  try {
    engine.requireAgent();
    const twoSided = engine.sides.length > 1;
    const at = resume
      ? resumePoint(engine.sides, steps, resume.modelSteps ?? [], store.messages.list({ order: "desc", limit: 1, maxDepth: 0, includeSilent: true }).messages[0])
      : null;
    const model = await modelFor(engine, engine.side("a"));
    const execution = Execution.forTurn({
      flowId: turnId,
      model,
      fallbacks: await fallbacksFor(engine, engine.side("a")),
      ...(twoSided ? { sideB: { model: await modelFor(engine, engine.side("b")), fallbacks: await fallbacksFor(engine, engine.side("b")) } } : {}),
      history: () => conversationWindow(engine, model),
      ...(at ? { steps: at.steps, side: at.side, forced: store.turns.forcedSide(turnId) } : {}),
      keepForced: (side) => store.turns.setForcedSide(turnId, side),
    });
    made = true;
    slot.hold(execution);
    end = await runTurn(turnConversation(engine, execution, settings), execution);
    // A stop asked for (not a side ending the run) says why: a parent never takes it for the work done.
    if (end.status === "stopped" && !end.stoppedBy && !end.error && execution.signal.aborted) end = { ...end, error: stopReason(execution.signal) };
  } catch (e) {
    // The model could not be made (a bad spec, a missing binding), or the agent is no longer
    // deployed: the turn fails and says why; one a stop was asked of ends stopped, as asked.
    const asked = store.turns.stopRequested(turnId);
    if (asked !== undefined) end = { status: "stopped", steps, error: asked };
    else end = failedTurn(steps, e);
  } finally {
    slot.hold(null);
  }
  if (end.error !== undefined) end = { ...end, error: keptError(engine, end.error) };
  if (end.status === "waiting") {
    store.turns.setStatus(turnId, "waiting");
    return end;
  }
  // A stopped turn's run closes its open step as it stops (by the effect table: a write it cut is
  // parked, not aborted); a failed one, or one stopped before its run, closes it here.
  if (end.status === "failed" || (end.status === "stopped" && !made)) {
    // The author's console says so too: under `npm start` a failed turn is otherwise silent.
    if (end.status === "failed") log("error", `weft: turn ${turnId} of thread ${engine.meta.threadId} failed: ${end.error ?? "unknown error"}`);
    try {
      closeOpenStep(engine, turnId, end.error ?? "unknown error");
    } catch (e) {
      log("error", "weft: could not close the failed turn's open step", e);
    }
  }
  store.turns.end(turnId, end.status, end.error, end.errorCode);
  engine.emit("turn_finished", {
    turnId,
    status: end.status,
    steps: end.steps,
    ...(end.error ? { error: end.error } : {}),
    ...(end.errorCode ? { errorCode: end.errorCode } : {}),
    ...(end.stoppedBy ? { stoppedBy: end.stoppedBy } : {}),
  });
  // A parent call may wait on this child thread; not awaited, since the parent may be waiting on us.
  if (engine.meta.parent) void tellParent(engine);
  return end;
}

/** Why a stopped execution's signal fired, in words. */
function stopReason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "stopped");
}

/**
 * Moves the inbox into the history through the create-message hooks (outside any execution) and
 * begins their turn: the messages land, leave the inbox, and the turn's row (with a stop kept with
 * them) and its watchdog are written in one transaction, so a restart after it resumes the turn.
 * `admitting` is told at once which rows these are, the stop asked of their turn, if one was kept
 * with them, and how to stop the wait for a hook of theirs when a stop is asked of it: the
 * admission then ends as a stop kept with its rows says ({@link stoppedAdmission}). A row that
 * left the inbox while the hooks ran (its schedule was cancelled) is not stored: the admission
 * starts over with what still waits. Resolves null when nothing does, and with no turn when an
 * `after_create_message` hook threw: the messages are stored, and their turn ended failed naming it.
 * @throws the hook's error when a `before_create_message` hook throws: then nothing of them is stored, the message it
 * refused leaves the inbox ({@link refusedRows}; all of them for another error), a failed turn
 * names the hook, and the others wait for the next admission (their `before_create_message`
 * hooks run again then).
 */
export async function admitInbox(
  engine: RunWorld,
  slot: Pick<TurnSlot, "armWatchdog">,
  admitting: (ids: readonly number[], stopAsked: string | undefined, stop: (reason: string) => void) => void,
): Promise<{ messages: Message[]; turn: AdmittedTurn | null } | null> {
  const { store } = engine;
  const waiting = store.turns.inbox();
  if (waiting.length === 0) return null;
  // Rows a stop was asked of (a restart came before their turn began) begin their turn alone, stopped.
  const last = waiting.findLastIndex((p) => p.stopRequested !== undefined);
  const pending = last >= 0 ? waiting.slice(0, last + 1) : waiting;
  const ids = pending.map((p) => p.id);
  const stop = new AbortController();
  admitting(ids, last >= 0 ? waiting[last]!.stopRequested : undefined, (reason) => stop.abort(new Error(reason)));
  const turn: AdmittedTurn = { turnId: engine.newId("turn") };
  let stored: readonly Message[] = [];
  const begin = (messages: readonly Message[]): void => {
    stored = messages;
    // The stop kept with the rows (a restart came between, or it was asked while hooks ran) moves to the turn.
    const { dropped, stopAsked } = store.turns.dropInbox(ids);
    if (dropped < ids.length) throw new InboxChanged();
    const settings = settingsOfMessages(messages);
    // After its messages: they are before it, as the turn table counts (`TurnTable.first`).
    store.turns.begin(turn.turnId, Date.now(), settings);
    if (stopAsked !== undefined) store.turns.requestStop(turn.turnId, stopAsked);
    slot.armWatchdog();
    Object.assign(turn, settings ? { settings } : {}, stopAsked !== undefined ? { stopAsked } : {});
  };
  try {
    return { messages: await engine.createMessages(null, pending.map(admittedMessage), begin, stop.signal), turn };
  } catch (e) {
    // Rolled back with the messages; the hooks run again over what still waits.
    if (e instanceof InboxChanged) return admitInbox(engine, slot, admitting);
    if (cutByStop(e, stop.signal)) return stoppedAdmission(engine, turn, stored, errorMessage(e));
    // An after hook threw: the messages are stored (their posts answer them) and their turn, begun, fails naming the hook.
    if (store.turns.statusOf(turn.turnId) !== undefined) {
      endUnrun(engine, turn.turnId, e);
      return { messages: [...stored], turn: null };
    }
    // A hook refused one message: it leaves the inbox alone; those beside it wait for the next admission.
    const at = refusedMessageIndex(e);
    const refused = at === undefined ? ids : [ids[at]!];
    // Refused messages that were taken out meanwhile leave no failed turn.
    if (store.turns.dropInbox(refused).dropped === 0) throw e;
    const turnId = engine.newId("turn");
    store.turns.begin(turnId);
    endUnrun(engine, turnId, e);
    throw answering(e, refused);
  }
}

/**
 * Ends an admission a stop cut while one of its hooks ran (the hook may go on; nothing waits for
 * it). An `after_create_message` hook was cut: the messages are stored and their turn begun, with
 * the stop kept on its row, so it ends stopped. A `before_create_message` hook was: no hook let the
 * messages through, so none is stored; they stay in the inbox with the stop kept with them
 * (`TurnRunner.stop`), and the next admission takes them alone into a turn that begins stopped
 * (their hooks run again then). Null then: no turn begins now.
 */
function stoppedAdmission(engine: RunWorld, turn: AdmittedTurn, stored: readonly Message[], reason: string): { messages: Message[]; turn: AdmittedTurn } | null {
  const { turns } = engine.store;
  if (turns.statusOf(turn.turnId) === undefined) return null;
  return { messages: [...stored], turn: { ...turn, stopAsked: turns.stopRequested(turn.turnId) ?? reason } };
}

/** What a post answers when its thread's deletion cut its message's admission while a `before_create_message` hook still ran: it was not stored. */
export function deletedWhileAdmitted(): WeftError {
  return new WeftError("thread_not_found", "the thread was deleted while this message was being admitted (a create-message hook was still running): it was not stored", { deleted: true });
}

/** The inbox rows whose messages an admission's error answers, by the error. */
const refusedRowsOf = new WeakMap<Error, readonly number[]>();

/** `e`, marked as the answer of the messages of inbox rows `rows`. */
function answering(e: unknown, rows: readonly number[]): unknown {
  if (e instanceof Error) refusedRowsOf.set(e, rows);
  return e;
}

/**
 * The inbox rows whose messages the admission that threw `e` failed ({@link admitInbox}): the one
 * a hook refused, or all it took; the others it took wait for the next admission.
 */
export function refusedRows(e: unknown): readonly number[] {
  return (e instanceof Error ? refusedRowsOf.get(e) : undefined) ?? [];
}

/** `error` as a turn keeps it (its row, `turn_finished`, the open step it closes): redacted, then cut ({@link keptText}). */
function keptError(engine: RunWorld, error: string): string {
  return keptText(engine.redact, error);
}

/** Ends a turn that never ran, failed with `e`'s message (a create-message hook threw). */
function endUnrun(engine: RunWorld, turnId: string, e: unknown): void {
  const error = keptError(engine, errorMessage(e));
  engine.emit("turn_started", { turnId });
  engine.store.turns.end(turnId, "failed", error);
  engine.emit("turn_finished", { turnId, status: "failed", steps: 0, error });
}

/** Thrown inside an admission's transaction (rolling it back) when one of its rows left the inbox. */
class InboxChanged extends Error {}
