/**
 * Deadlines of one model request: an idle deadline (no stream part for `idleMs`; keep-alive
 * comments are not parts) and an overall one (`stepMs` from the request to its finish). Past
 * either, the request is aborted and the stream throws a retryable `ModelError` with code
 * `model_timeout`, so the usual retry rules apply to it.
 * @module
 */
import { ModelError, type ModelStreamPart } from "../models/model.js";

/** The deadlines of one model request, in milliseconds. */
export interface StepDeadlines {
  /** Longest wait for the next stream part (`WEFT_MODEL_IDLE_MS`). */
  idleMs: number;
  /** Longest a request may take from its start to its finish (`WEFT_MODEL_STEP_MS`). */
  stepMs: number;
}

/** Default idle deadline of a model request: 2 minutes with no stream part (a reasoning model may think that long). */
export const MODEL_IDLE_MS = 120_000;
/** Default overall deadline of a model request: 10 minutes. */
export const MODEL_STEP_MS = 600_000;

/** The defaults, for hosts that set none. */
export const DEFAULT_STEP_DEADLINES: StepDeadlines = { idleMs: MODEL_IDLE_MS, stepMs: MODEL_STEP_MS };

/**
 * Streams `open(signal)` under `deadlines`. `signal` fires when `outer` does or a deadline passes;
 * a model that ignores it is left behind all the same (its pending read is dropped).
 * @throws ModelError `model_timeout` (retryable) naming the deadline and its setting; whatever the
 * stream throws otherwise.
 */
export async function* withDeadlines(
  open: (signal: AbortSignal) => AsyncIterable<ModelStreamPart>,
  outer: AbortSignal,
  deadlines: StepDeadlines,
): AsyncGenerator<ModelStreamPart> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener("abort", onAbort, { once: true });
  let expired: ModelError | null = null;
  let wake: (() => void) | null = null;
  const expire = (message: string) => {
    if (expired || outer.aborted) return;
    expired = new ModelError(message, true, undefined, undefined, "model_timeout");
    controller.abort(expired);
    wake?.();
  };
  // One timer for the idle deadline, re-set only when it fires. Only time spent waiting for the
  // model counts: a part weft is still handling (an announcement's hook) is not the model's delay.
  let last = Date.now();
  let waiting = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const checkIdle = () => {
    const idle = waiting ? Date.now() - last : 0;
    if (idle >= deadlines.idleMs) expire(`no stream part for ${deadlines.idleMs} ms: the model step's idle deadline passed (WEFT_MODEL_IDLE_MS)`);
    else idleTimer = setTimeout(checkIdle, deadlines.idleMs - idle);
  };
  idleTimer = setTimeout(checkIdle, deadlines.idleMs);
  const stepTimer = setTimeout(() => expire(`the model step took longer than ${deadlines.stepMs} ms: its overall deadline passed (WEFT_MODEL_STEP_MS)`), deadlines.stepMs);
  const iterator = open(controller.signal)[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      if (expired) throw expired;
      last = Date.now();
      waiting = true;
      const next = iterator.next();
      // The read a deadline left behind may still fail later: nobody waits for it.
      next.catch(() => undefined);
      const timedOut = new Promise<null>((resolve) => (wake = () => resolve(null)));
      let result: IteratorResult<ModelStreamPart> | null;
      try {
        result = await Promise.race([next, timedOut]);
      } catch (e) {
        throw expired ?? e;
      }
      wake = null;
      waiting = false;
      if (result === null || expired) throw expired!;
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    clearTimeout(idleTimer);
    clearTimeout(stepTimer);
    outer.removeEventListener("abort", onAbort);
    // Ends the model's stream (and its request) unless it ended by itself; not awaited after a
    // deadline, since a model that ignores its signal would hold this up.
    if (!finished) {
      // The request is not wanted any more, whatever ended the reading.
      if (!controller.signal.aborted) controller.abort(new Error("the model step ended before its stream did"));
      const closing = iterator.return?.();
      if (expired) void closing?.catch(() => undefined);
      else await closing;
    }
  }
}
