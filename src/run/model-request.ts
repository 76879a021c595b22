/**
 * One model step requested: streamed with its live events under the step's deadlines, a transient
 * provider failure retried with backoff (the provider's `Retry-After` when it gives one), and a
 * failure that persists handed to the execution's fallback models in order. Transient: 408, 409,
 * 429, 5xx, a network failure, a stream cut before its finish (closed or reset connection,
 * malformed chunk) and a deadline that passed. An attempt is retried only while nothing of it was
 * acted on (no call announced with its hook, no call the provider ran): its streamed deltas are
 * then void, and `model_step_discarded` tells clients so before the next attempt streams.
 * @module
 */
import { WeftError, errorMessage } from "../errors.js";
import type { Message } from "../protocol.js";
import { type Model, ModelError, type ModelFailureCode } from "../models/model.js";
import type { Execution } from "./execution.js";
import { type StepResult, readStep } from "./step.js";
import { DEFAULT_STEP_DEADLINES, withDeadlines } from "./step-deadline.js";
import { StreamEvents } from "./stream-events.js";
import { keptText } from "../kept-text.js";
import { AttemptTally } from "../usage/attempt.js";
import type { TurnHost } from "./turn-host.js";

/**
 * Asks the model for one step, streaming its live events; returns the step, the model that
 * answered and the calls that were announced (`tool_call_started`) while their arguments streamed.
 * A transient failure is retried (see the module doc); one that persists, or any other provider
 * error, moves on to the execution's fallback models in order.
 * @throws WeftError `stream_cut` or `model_timeout` when the last model's last failure was one;
 * an Error naming every model's failure otherwise.
 */
export async function requestStep(
  host: TurnHost,
  execution: Execution,
  step: number,
  messages: Message[],
): Promise<{ response: StepResult; model: Model; announced: Announced; attempts: number; retries: string[] }> {
  const retries: string[] = [];
  const failures: string[] = [];
  const models = [execution.model, ...execution.fallbacks];
  let attempts = 0;
  let code: ModelFailureCode | undefined;
  for (const [i, model] of models.entries()) {
    try {
      const answered = await requestFrom(host, execution, model, step, messages, retries, attempts);
      return { ...answered, model, attempts: attempts + answered.attempts, retries };
    } catch (e) {
      if (!(e instanceof StepFailure)) throw e;
      attempts += e.attempts;
      failures.push(e.message);
      code = e.code;
      const next = models[i + 1];
      if (!e.fallback || !next) break;
      retries.push(`${keptText((text) => host.redact(text), e.message, MAX_RETRY_NOTE_BYTES)}; falling back to ${next.id}`);
    }
  }
  const message = failures.join("; then ");
  throw code ? new WeftError(code, message) : new Error(message);
}

/** The calls a step announced while they streamed (see {@link StreamEvents.announcedAs}). */
export type Announced = Pick<StreamEvents, "announcedAs">;

/** A model's step that failed for good; `fallback` when a fallback model may answer instead. */
class StepFailure extends Error {
  constructor(
    message: string,
    readonly attempts: number,
    readonly fallback: boolean,
    readonly code: ModelFailureCode | undefined,
  ) {
    super(message);
  }
}

/** A step whose stream ended before its finish, as the failure it is. */
function cutStream(response: StepResult): ModelError {
  const why = response.error ? ` (${response.error})` : "";
  return new ModelError(`the model's stream was cut before its finish${why}`, true, undefined, undefined, "stream_cut");
}

/** One model's attempts at a step; `before` attempts were made by earlier models. @throws StepFailure */
async function requestFrom(
  host: TurnHost,
  execution: Execution,
  model: Model,
  step: number,
  messages: Message[],
  retries: string[],
  before: number,
): Promise<{ response: StepResult; announced: Announced; attempts: number }> {
  const turnId = execution.flowId;
  const deadlines = host.modelDeadlines ?? DEFAULT_STEP_DEADLINES;
  // Remote MCP servers' tool lists are fetched (or taken from their cache) before the step's catalog is read.
  await host.prepareTools?.();
  for (let attempt = 1; ; attempt++) {
    const events = new StreamEvents(
      {
        emit: (type, data) => host.emit(type, data),
        progressArgumentOf: (name) => host.progressArgumentOf(name),
        announce: (call) => host.announce(call),
        idOf: (id) => host.uniqueIds([{ id, name: "", arguments: "" }])[0]!.id,
      },
      turnId,
      step,
    );
    // What the provider ran itself was acted on: asking again would run it again.
    let providerRan = false;
    const tools = host.tools();
    // --- usage: reserve the request's maximum against the budgets (throws BudgetExceeded before any provider call) ---
    const ticket = await host.meter?.begin({ turnId: rootFlow(execution), step, model: model.id, ...(model.wire ? { wire: model.wire } : {}), ...(model.contextTokens ? { contextTokens: model.contextTokens } : {}), ...(model.userPaid ? { userPaid: true } : {}), ...(host.system !== undefined ? { system: host.system } : {}), messages, tools, ...(host.modelSettings !== undefined ? { settings: host.modelSettings } : {}) });
    const settings = ticket?.settings ?? host.modelSettings;
    // What the attempt received: a failed attempt was sent, so it is recorded and charged from this.
    const tally = new AttemptTally();
    try {
      const stream = withDeadlines(
        (signal) =>
          model.stream({
            threadId: host.threadId,
            turnId,
            step,
            ...(host.system !== undefined ? { system: host.system } : {}),
            ...(settings !== undefined ? { settings } : {}),
            messages,
            tools,
            signal,
          }),
        execution.signal,
        deadlines,
      );
      const response = await readStep(stream, {
        part: (part) => {
          tally.part(part);
          if (part.type === "tool-result") providerRan = true;
          return events.part(part);
        },
      });
      const cut = response.finishReason === "interrupted" || response.finishReason === "error";
      // A cut stream of which something was acted on is kept: its calls end as cut off.
      if (cut && !execution.signal.aborted && !events.anyAnnounced && !providerRan) throw cutStream(response);
      // The scripted model's "nothing to play" (reason `end`, nothing in it) called no provider: not charged, its reservation released.
      const played = !(response.finishReason === "end" && response.text === "" && response.toolCalls.length === 0);
      if (ticket) await (played ? host.meter!.answered(ticket, response.usage, answeredText(response), response.finishReason) : host.meter!.failed(ticket));
      return { response, announced: events, attempts: attempt };
    } catch (e) {
      if (ticket) await host.meter!.failed(ticket, tally);
      // Retried (or handed to a fallback) only while nothing of the attempt was acted on.
      const actedOn = events.anyAnnounced || providerRan;
      const provider = e instanceof ModelError && !actedOn && !execution.signal.aborted;
      const code = e instanceof ModelError ? e.code : undefined;
      // A provider's message is its to size (an endpoint a user named): kept redacted and cut wherever it goes.
      const said = keptText((text) => host.redact(text), errorMessage(e));
      // Clients drop what they were shown of the attempt: the next one (or a fallback) streams from the start.
      if (events.sent && !actedOn && !execution.signal.aborted) host.emit("model_step_discarded", { turnId, step, attempt: before + attempt, reason: said });
      if (!provider || !e.retryable || attempt >= MAX_MODEL_ATTEMPTS) {
        const tried = attempt > 1 ? ` after ${attempt} attempts` : "";
        throw new StepFailure(`model ${model.id} failed${tried}: ${said}`, attempt, provider, code);
      }
      const waitMs = modelBackoffMs(attempt, e.retryAfterMs);
      // Each step's record keeps its retries, and a turn's row all its steps: a note, shorter still.
      retries.push(`${keptText((text) => host.redact(text), e.message, MAX_RETRY_NOTE_BYTES)} (retried after ${waitMs} ms)`);
      await sleep(waitMs, execution.signal);
    }
  }
}

/**
 * The flow a request counts under: its turn's (a nested prompt run in this thread counts under the
 * run that called it). An agent called as a tool runs in a child thread of its own, whose turn is
 * its own: a `turn` budget counts one thread's turn, not the caller's turn with its sub-agents'.
 */
function rootFlow(execution: Execution): string {
  let root = execution;
  while (root.parent) root = root.parent;
  return root.flowId;
}

/** What a step answered, for the usage estimate when the provider reports no usage. */
function answeredText(response: StepResult): string {
  return response.text + response.toolCalls.map((c) => c.name + c.arguments).join("");
}

/** Most bytes of a provider's message a step's record keeps for each retry (1 KiB; `ModelStepRecord.retries`). */
export const MAX_RETRY_NOTE_BYTES = 1024;

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
