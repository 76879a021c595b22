/**
 * One model step requested: streamed with its live events, a transient provider failure retried
 * with backoff (the provider's `Retry-After` when it gives one), and a failure that persists
 * handed to the execution's fallback models in order. Nothing is retried once any part streamed,
 * so no event or announcement goes out twice.
 * @module
 */
import { errorMessage } from "../errors.js";
import type { Message } from "../protocol.js";
import { type Model, ModelError } from "../models/model.js";
import type { Execution } from "./execution.js";
import { type StepResult, readStep } from "./step.js";
import { StreamEvents } from "./stream-events.js";
import type { TurnHost } from "./turn.js";

/**
 * Asks the model for one step, streaming its live events; returns the step, the model that
 * answered and the calls that were announced (`tool_call_started`) while their arguments streamed.
 * A provider failure is retried (429, 5xx, network); one that persists, or any other provider
 * error, moves on to the execution's fallback models in order.
 */
export async function requestStep(
  host: TurnHost,
  execution: Execution,
  step: number,
  messages: Message[],
): Promise<{ response: StepResult; model: Model; announced: Set<string>; attempts: number; retries: string[] }> {
  const retries: string[] = [];
  const failures: string[] = [];
  const models = [execution.model, ...execution.fallbacks];
  let attempts = 0;
  for (const [i, model] of models.entries()) {
    try {
      const answered = await requestFrom(host, execution, model, step, messages, retries);
      return { ...answered, model, attempts: attempts + answered.attempts, retries };
    } catch (e) {
      if (!(e instanceof StepFailure)) throw e;
      attempts += e.attempts;
      failures.push(e.message);
      const next = models[i + 1];
      if (!e.fallback || !next) break;
      retries.push(`${e.message}; falling back to ${next.id}`);
    }
  }
  throw new Error(failures.join("; then "));
}

/** A model's step that failed for good; `fallback` when a fallback model may answer instead. */
class StepFailure extends Error {
  constructor(
    message: string,
    readonly attempts: number,
    readonly fallback: boolean,
  ) {
    super(message);
  }
}

/** One model's attempts at a step. @throws StepFailure */
async function requestFrom(
  host: TurnHost,
  execution: Execution,
  model: Model,
  step: number,
  messages: Message[],
  retries: string[],
): Promise<{ response: StepResult; announced: Set<string>; attempts: number }> {
  const turnId = execution.flowId;
  for (let attempt = 1; ; attempt++) {
    const events = new StreamEvents(
      {
        emit: (type, data) => host.emit(type, data),
        progressArgumentOf: (name) => host.progressArgumentOf(name),
        announce: (call) => host.announce({ ...call, callId: host.uniqueIds([{ id: call.callId, name: call.toolName, arguments: "" }])[0]!.id }),
      },
      turnId,
      step,
    );
    let streamed = false;
    try {
      const response = await readStep(
        model.stream({
          threadId: host.threadId,
          turnId,
          step,
          ...(host.system !== undefined ? { system: host.system } : {}),
          messages,
          tools: host.tools(),
          signal: execution.signal,
        }),
        {
          part: (part) => {
            streamed = true;
            return events.part(part);
          },
        },
      );
      return { response, announced: events.announced, attempts: attempt };
    } catch (e) {
      // Retried (or handed to a fallback) only before anything streamed, so no event or announcement is ever sent twice.
      const provider = e instanceof ModelError && !streamed && !execution.signal.aborted;
      if (!provider || !e.retryable || attempt >= MAX_MODEL_ATTEMPTS) {
        const tried = attempt > 1 ? ` after ${attempt} attempts` : "";
        throw new StepFailure(`model ${model.id} failed${tried}: ${errorMessage(e)}`, attempt, provider);
      }
      const waitMs = modelBackoffMs(attempt, e.retryAfterMs);
      retries.push(`${e.message} (retried after ${waitMs} ms)`);
      await sleep(waitMs, execution.signal);
    }
  }
}

/** Requests per model step: the first and up to two retries of a transient provider failure. */
export const MAX_MODEL_ATTEMPTS = 3;
/** The longest weft waits before retrying a model request, whatever `Retry-After` says. */
export const MAX_MODEL_RETRY_WAIT_MS = 30_000;

/** The wait before retry `attempt` + 1: the provider's `Retry-After` when given, else 500 ms doubling. */
export function modelBackoffMs(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), MAX_MODEL_RETRY_WAIT_MS);
  return Math.min(500 * 2 ** (attempt - 1), MAX_MODEL_RETRY_WAIT_MS);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
