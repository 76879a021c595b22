/**
 * Crash plans of the crash matrix, kept in module memory: a `ctx.abort()` resets a Durable Object,
 * not the isolate, so a plan outlives the crash it injects and the test reads what fired. The test
 * worker's Thread (test/worker.ts) consults it at every crash point of the pipeline; the effect
 * fixtures consult it inside `execute`.
 * @module
 */

/** Crash when `point` is reached for `callId` (any call when absent), after `skip` earlier matches. */
export interface PlannedCrash {
  point: string;
  callId?: string;
  skip?: number;
}

const plans = new Map<string, PlannedCrash[]>();
const fired = new Map<string, string[]>();
const aborters = new Map<string, (reason: string) => void>();
const alarms = new Map<string, number>();
const alarmsAtCrash = new Map<string, number>();

/** Called by the test Thread when an alarm handler ran to its end. */
export function noteAlarmDone(threadId: string): void {
  alarms.set(threadId, (alarms.get(threadId) ?? 0) + 1);
}

/** True once every planned crash fired and an alarm has run to its end since the last one. */
export function recoveredByAlarm(threadId: string): boolean {
  return pendingCrashes(threadId) === 0 && alarmSinceLastCrash(threadId);
}

/** True when no crash fired yet, or an alarm ran to its end after the last one. */
export function alarmSinceLastCrash(threadId: string): boolean {
  return !alarmsAtCrash.has(threadId) || (alarms.get(threadId) ?? 0) > alarmsAtCrash.get(threadId)!;
}

/** Replaces the plan of a thread (by thread id). */
export function planCrashes(threadId: string, crashes: PlannedCrash[]): void {
  plans.set(threadId, crashes.map((c) => ({ ...c })));
}

/** The crashes carried out in a thread so far (each one after its abort began), as `point:callId`. */
export function firedCrashes(threadId: string): readonly string[] {
  return fired.get(threadId) ?? [];
}

/** Planned crashes that have not fired yet. */
export function pendingCrashes(threadId: string): number {
  return plans.get(threadId)?.length ?? 0;
}

/** Lets `crashInsideExecute` reach the thread's current instance. */
export function registerAborter(threadId: string, abort: (reason: string) => void): void {
  aborters.set(threadId, abort);
}

/** Consumes the first plan matching this point and call; true when the thread must crash now. */
export function takeCrash(threadId: string, point: string, callId: string): boolean {
  const list = plans.get(threadId);
  const index = list?.findIndex((c) => c.point === point && (c.callId === undefined || c.callId === callId)) ?? -1;
  if (!list || index < 0) return false;
  const plan = list[index]!;
  if ((plan.skip ?? 0) > 0) {
    plan.skip = plan.skip! - 1;
    return false;
  }
  list.splice(index, 1);
  return true;
}

/**
 * Carries out a crash `takeCrash` consumed: records it, then aborts at once (nothing runs in
 * between), so a test that sees it in `firedCrashes` knows the old instance is gone.
 */
export function cut(threadId: string, point: string, callId: string, abort: (reason: string) => void, reason: string): void {
  alarmsAtCrash.set(threadId, alarms.get(threadId) ?? 0);
  fired.set(threadId, [...(fired.get(threadId) ?? []), `${point}:${callId}`]);
  abort(reason);
}

/** The thread whose call has `effectKey` (`<threadId>.<lifetime>:<callId>`; a thread id is hex). */
const threadOfEffectKey = (effectKey: string): string => effectKey.split(/[.:]/, 1)[0]!;

/** Called by the effect fixtures after their effect: crashes the thread when planned. */
export function crashInsideExecute(effectKey: string, callId: string): void {
  const threadId = threadOfEffectKey(effectKey);
  const abort = aborters.get(threadId);
  if (abort && takeCrash(threadId, "inside_execute", callId)) cut(threadId, "inside_execute", callId, abort, `injected crash inside execute of ${callId}`);
}

/**
 * Called by the effect fixtures once their effect's message is sent and before it is answered:
 * crashes the thread when planned, while the call's journal row is written but not yet confirmed
 * (nothing awaited the commit), so the output gate still holds the message.
 */
export function crashWithEffectInFlight(effectKey: string, callId: string): void {
  const threadId = threadOfEffectKey(effectKey);
  const abort = aborters.get(threadId);
  if (abort && takeCrash(threadId, "effect_unconfirmed", callId)) cut(threadId, "effect_unconfirmed", callId, abort, `injected crash with the effect of ${callId} in flight`);
}
