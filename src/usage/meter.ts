/**
 * The thread's side of usage: each model request is metered here. Before it leaves, its maximum is
 * reserved in the owner's account against every budget that applies (a refusal ends the turn
 * before any provider is called); after it, its ledger row is written in the thread and its
 * reservation settled to the actual use in the account. One meter per thread instance.
 *
 * The common case is cheap: the agent's and the deployment's budgets are known here, and the
 * first reservation of an instance learns whether the user has budgets of their own. While none
 * can apply, a request reserves nothing (no round trip before it); the account remembers that it
 * told this thread "none", and before it stores a user's first budgets it tells the thread
 * (`handOver`), which from then on reserves every request and hands over its requests in flight
 * as reservations, so a new budget counts them as it would have counted their reservations.
 *
 * The rollup to the account is never awaited. A request that reserved is sent as soon as its row
 * is recorded (its reservation is replaced by what it used); one that reserved nothing waits in
 * memory up to {@link ROLLUP_DELAY_MS} so that the requests of many turns go in one message
 * (`settleUsage`) instead of one each, and is handed over like a request in flight if the user
 * sets budgets meanwhile. Rows go in the order of the thread's ledger and the account keeps the
 * last it has, so a batch that a crash kept from leaving is sent with the next one.
 *
 * A request that fails after it was sent (an error answer, a cut or reset stream, a deadline, a
 * stop) is recorded and settled like an answer, from what the provider reported or else an
 * estimate (marked) of what was sent and received: a provider may bill it, and a failure a user
 * can provoke must not spend past a budget. Each attempt of a retried step is its own request.
 * @module
 */
import type { Message, TokenUsage } from "../protocol.js";
import type { ModelTool } from "../models/model.js";
import type { ModelSettings } from "../models/settings.js";
import type { Wire } from "../models/history.js";
import { outputPlan } from "../models/output-bound.js";
import type { AccountApi } from "../account/api.js";
import { WeftError } from "../errors.js";
import { type Budget, type NamedBudget, budgetsFor } from "./budgets.js";
import { costMicroUsd, priceOf, priceTableOf } from "./prices.js";
import type { BudgetRefusal, ReserveRequest, SettledRow } from "./reservations.js";
import { type ModelUsageRow, modelUsageRow } from "./row.js";
import type { ThreadUsageLedger } from "./thread-ledger.js";
import type { AttemptTally } from "./attempt.js";
import { modelDeadlinesOf } from "../run/model-deadlines.js";
import { inputBound } from "./input-bound.js";
import { log } from "../log.js";

/** Output tokens a request is bounded to when budgets apply and its settings name no `maxOutputTokens`. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 4096;

/** How long past the request's overall deadline an unsettled reservation is kept before the account releases it, ms. */
export const LEASE_MARGIN_MS = 60_000;

/** Longest a request that reserved nothing waits in the thread before its usage is sent to the account, ms. */
export const ROLLUP_DELAY_MS = 1000;

/** Requests that reserved nothing sent to the account in one message, at most (more are sent at once). */
export const ROLLUP_BATCH = 64;

/** A model request about to be made. */
export interface MeteredRequest {
  turnId: string;
  step: number;
  /** `"<provider>:<model id>"`. */
  model: string;
  /** The model's wire (Anthropic's counts thinking in the output bound). */
  wire?: Wire;
  system?: string;
  messages: readonly Message[];
  tools: readonly ModelTool[];
  /** The user pays for it (their own key or endpoint): the deployment's budgets neither limit nor count it. */
  userPaid?: boolean;
  /** The model's context window in tokens (bounds a file part's input, see `partBound`). */
  contextTokens?: number;
  /** The request's settings: its bound on output tokens, if it sets one, and what adds to it (reasoning effort). */
  settings?: ModelSettings;
}

/** A request under way: its reservation (if any), when it started, and the output bound to send. */
export interface MeterTicket {
  id: string;
  request: MeteredRequest;
  started: number;
  reserved: boolean;
  /** No reservation was asked for: no budget could apply when the request left. */
  unmetered?: boolean;
  /** Set when budgets apply and the request named no bound: the request must be sent with these settings (bounded). */
  settings?: ModelSettings;
  /** Set once the request is recorded: a later failure of the caller records nothing more. */
  done?: boolean;
}

/** A request refused by a budget; the turn ends `stopped` with reason `budget_exceeded`. */
export class BudgetExceeded extends Error {
  constructor(readonly refusal: BudgetRefusal) {
    const unit = refusal.measure === "tokens" ? " tokens" : " USD";
    const budget = `budget ${refusal.budget.id} (${refusal.budget.scope}, per ${refusal.budget.period})`;
    super(
      refusal.unpriced
        ? `${budget} limits cost, and the model has no price (give it one in WEFT_PRICES): the request is refused rather than counted as free`
        : `${budget} would be exceeded: ${refusal.used}${unit} used of ${refusal.limit}${unit}, this request needs up to ${refusal.requested}${unit}`,
    );
    this.name = "BudgetExceeded";
  }
}

/** What the meter needs of its thread. */
export interface MeterHost {
  threadId: string;
  /** When the thread was created (epoch ms; `SettleBatch.createdAt`): the account counts each thread made on the id apart. */
  createdAt: number;
  agentId: string;
  /** The agent definition's budgets. */
  agentBudgets?: readonly Budget[];
  workerEnv: Readonly<Record<string, unknown>>;
  /** The owner's account; null for a thread without one (then no budget is enforced). */
  account: AccountApi | null;
  ledger: ThreadUsageLedger;
  /** Emits `budget_exceeded`. */
  refused(turnId: string, refusal: BudgetRefusal): void;
  /** Told of each answered request's row and finish reason (the tracer's `chat` spans). */
  recorded?(row: ModelUsageRow, finishReason: string): void;
  /** Keeps the instance alive for work not awaited on the turn's path (`ctx.waitUntil`); absent: left to run. */
  defer?(work: Promise<unknown>): void;
}

/** Meters one thread instance's model requests. */
export class ThreadMeter {
  /** This instance's id: reservations of an earlier instance of the thread were cut by a crash. */
  readonly instance = crypto.randomUUID();
  /**
   * Whether the user has budgets of their own: unknown until the account answers a reservation;
   * `some` once the account says so or hands over (never back to `none` in this instance).
   */
  private userBudgets: "unknown" | "none" | "some" = "unknown";
  /** Requests under way that reserved nothing, by ticket id (handed over if the user sets budgets). */
  private readonly unreserved = new Map<string, MeterTicket>();
  /** Answered requests not yet sent to the account, oldest first, with the tickets of those that reserved nothing. */
  private readonly unsent: Array<{ row: SettledRow; ticket: MeterTicket }> = [];
  private rollupTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly host: MeterHost) {}

  /** Whether the next request must reserve: an account, and a budget that applies or may apply. */
  private mustReserve(budgets: readonly NamedBudget[]): boolean {
    return this.host.account !== null && (budgets.length > 0 || this.userBudgets !== "none");
  }

  /**
   * The user set budgets of their own (the account asks before storing them): every later request
   * reserves, and the requests now under way without a reservation are returned to be reserved.
   */
  handOver(): ReserveRequest[] {
    this.userBudgets = "some";
    const out: ReserveRequest[] = [];
    for (const ticket of this.unreserved.values()) {
      ticket.reserved = true;
      out.push(this.reservation(ticket.id, ticket.request, []));
    }
    this.unreserved.clear();
    // Answered but not yet sent: reserved at what they used, until their rollup settles them.
    for (const { row, ticket } of this.unsent) {
      if (row.reservation !== undefined) continue;
      row.reservation = ticket.id;
      out.push({ ...this.reservation(ticket.id, ticket.request, []), tokens: row.inputTokens + row.outputTokens, inputTokens: row.inputTokens, costMicroUsd: row.costMicroUsd ?? 0 });
    }
    this.send();
    return out;
  }

  /** The reservation of `request`: input counted, output bounded by what it sends (see {@link reservedOutput}). */
  private reservation(id: string, request: MeteredRequest, budgets: NamedBudget[]): ReserveRequest {
    const output = reservedOutput(request);
    const input = inputBound(request);
    const price = priceOf(priceTableOf(this.host.workerEnv), request.model);
    return {
      id,
      threadId: this.host.threadId,
      agentId: this.host.agentId,
      turnId: request.turnId,
      instance: this.instance,
      model: request.model,
      tokens: input + output,
      inputTokens: input,
      // Every input token at the dearest input price (none known yet to be a cache read).
      costMicroUsd: price ? costMicroUsd({ input, output, cached: 0, cacheWrite: 0 }, { ...price, input: Math.max(price.input, price.cacheWrite ?? 0) }) : 0,
      ...(price ? {} : { unpriced: true }),
      ...(request.userPaid ? { userPaid: true } : {}),
      expiresAt: Date.now() + leaseMs(this.host.workerEnv),
      budgets,
    };
  }

  /** Work off the turn's path: kept alive by the host, a failure only logged. */
  private background(work: Promise<unknown>): void {
    const done = work.catch((e: unknown) => log("error", `weft: usage not rolled up in the account: ${String(e)}`));
    this.host.defer?.(done);
  }

  /**
   * Reserves the request's maximum: input counted as the UTF-8 bytes of what is sent (no
   * byte-level tokenizer makes more tokens than bytes) and its parts (see {@link inputBound}),
   * output bounded by the output bound it sends (its max tokens and any thinking budget).
   * @throws BudgetExceeded when a budget would be crossed (after emitting `budget_exceeded`).
   */
  async begin(request: MeteredRequest): Promise<MeterTicket> {
    const id = `rsv_${crypto.randomUUID()}`;
    const account = this.host.account;
    if (!account) return { id, request, started: Date.now(), reserved: false };
    const budgets: NamedBudget[] = budgetsFor(this.host.agentId, this.host.agentBudgets, this.host.workerEnv, request.userPaid === true);
    if (!this.mustReserve(budgets)) {
      const ticket: MeterTicket = { id, request, started: Date.now(), reserved: false, unmetered: true };
      this.unreserved.set(id, ticket);
      return ticket;
    }
    const answer = await account.reserveBudget(this.reservation(id, request, budgets));
    if (!answer.ok) throw new WeftError(answer.error.code, answer.error.message, answer.error.details);
    if (answer.value.reserved && this.userBudgets === "unknown") this.userBudgets = answer.value.userBudgets ? "some" : "none";
    if (!answer.value.reserved) {
      this.host.refused(request.turnId, answer.value.refusal);
      throw new BudgetExceeded(answer.value.refusal);
    }
    // Bounded only where a budget applies: the reservation must cover what the provider may send.
    const bound = answer.value.budgets > 0 && request.settings?.maxOutputTokens === undefined;
    return { id, request, started: Date.now(), reserved: true, ...(bound ? { settings: boundedSettings(request.settings) } : {}) };
  }

  /** Records an answered request in the thread's ledger and settles its reservation to what it used. */
  async answered(ticket: MeterTicket, usage: TokenUsage, answered: string, finishReason = "stop"): Promise<ModelUsageRow> {
    return this.settle(ticket, { usage, answered }, finishReason);
  }

  /**
   * A request that got no answer. `sent`: what it received before it failed (it was sent, so it is
   * recorded, marked failed, and charged like an answer); absent: it never left, and its
   * reservation is released. A ticket already recorded is left as it is.
   */
  async failed(ticket: MeterTicket, sent?: AttemptTally): Promise<void> {
    if (ticket.done) return;
    if (sent) {
      try {
        await this.settle(ticket, { usage: sent.usage, answered: "", receivedQuarters: sent.quarters, failed: true }, "error");
      } catch (e) {
        // Called while the request's own failure is handled (an instance being aborted cannot write):
        // that failure stands; an unsettled reservation is charged whole when its lease ends.
        log("error", `weft: a failed model request was not recorded: ${String(e)}`);
      }
      return;
    }
    ticket.done = true;
    this.unreserved.delete(ticket.id);
    const account = this.host.account;
    if (ticket.reserved && account) this.background(account.releaseBudget(ticket.id));
  }

  /** Records the request's row in the thread's ledger and settles it in the account (see {@link send}). */
  private async settle(ticket: MeterTicket, got: { usage: TokenUsage; answered: string; receivedQuarters?: number; failed?: boolean }, finishReason: string): Promise<ModelUsageRow> {
    const r = ticket.request;
    ticket.done = true;
    const bound = outputPlan({ id: r.model, ...(r.wire ? { wire: r.wire } : {}) }, ticket.settings ?? r.settings).sent;
    const row = modelUsageRow(
      { turnId: r.turnId, step: r.step, model: r.model, userPaid: r.userPaid === true, durationMs: Date.now() - ticket.started, sent: r.messages, tools: r.tools, ...(r.contextTokens !== undefined ? { contextTokens: r.contextTokens } : {}), ...(r.system !== undefined ? { system: r.system } : {}), ...(bound !== undefined ? { outputBound: bound } : {}), ...got },
      priceTableOf(this.host.workerEnv),
    );
    const id = this.host.ledger.record(row);
    this.host.recorded?.(row, finishReason);
    this.unreserved.delete(ticket.id);
    if (this.host.account) {
      this.unsent.push({ row: { ...settledOf(row), row: id, ...(ticket.reserved ? { reservation: ticket.id } : {}) }, ticket });
      // A reservation is settled at once (calls on one stub arrive in order, so the next reservation
      // sees it settled); usage that reserved nothing waits to go with other requests'.
      if (ticket.reserved || this.unsent.length >= ROLLUP_BATCH) this.send();
      else this.rollupTimer ??= setTimeout(() => this.send(), ROLLUP_DELAY_MS);
    }
    return row;
  }

  /**
   * Sends every unsent row to the account, not awaited: the answers stand whatever the account
   * says (an unsettled reservation is charged whole when its lease ends). When the account is behind (rows a crash
   * or a failed send kept from it), the rows it lacks are read from the thread's ledger and sent first.
   */
  private send(): void {
    if (this.rollupTimer !== null) clearTimeout(this.rollupTimer);
    this.rollupTimer = null;
    const account = this.host.account;
    if (!account || this.unsent.length === 0) return;
    const rows = this.unsent.splice(0).map((u) => u.row);
    const batch = (list: SettledRow[]) => ({ threadId: this.host.threadId, createdAt: this.host.createdAt, agentId: this.host.agentId, fromRow: list[0]!.row, rows: list });
    this.background(
      account.settleUsage(batch(rows)).then(async (answer) => {
        if (!answer.ok) throw new Error(`rows ${rows[0]!.row} to ${rows.at(-1)!.row}: ${answer.error.message}`);
        const behind = answer.value.behind;
        if (behind === null) return;
        const missing = this.host.ledger.between(behind, rows[0]!.row).map((m) => ({ ...settledOf(m.usage), row: m.row }));
        const again = await account.settleUsage(batch([...missing, ...rows]));
        if (!again.ok || again.value.behind !== null) throw new Error(`rows ${behind + 1} to ${rows.at(-1)!.row}: ${again.ok ? "the account is still behind" : again.error.message}`);
      }),
    );
  }

}

/** What the account rolls up of a ledger row. */
function settledOf(u: ModelUsageRow): Omit<SettledRow, "row"> {
  return {
    turnId: u.turnId,
    model: u.model,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cachedInputTokens: u.cachedInputTokens,
    reasoningTokens: u.reasoningTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    estimated: u.estimated,
    durationMs: u.durationMs,
    costMicroUsd: u.costMicroUsd,
    userPaid: u.userPaid,
    at: u.at,
  };
}

/** A request's settings with an output bound: its own, or {@link DEFAULT_RESERVED_OUTPUT_TOKENS}. */
function boundedSettings(settings: ModelSettings | undefined): ModelSettings {
  return settings?.maxOutputTokens !== undefined ? settings : { ...settings, maxOutputTokens: DEFAULT_RESERVED_OUTPUT_TOKENS };
}

/**
 * The output a reservation covers: the output bound the request is sent with (its settings, bounded
 * if they name no bound), as {@link outputPlan} computes it for the AI SDK adapter too, so that
 * a thinking budget added to Anthropic's `max_tokens` is reserved as it is sent.
 */
export function reservedOutput(request: Pick<MeteredRequest, "model" | "wire" | "settings">): number {
  return outputPlan({ id: request.model, ...(request.wire ? { wire: request.wire } : {}) }, boundedSettings(request.settings)).sent!;
}

/** An unsettled reservation's lease: the request's overall deadline (`WEFT_MODEL_STEP_MS`) and a margin. */
function leaseMs(env: Readonly<Record<string, unknown>>): number {
  return modelDeadlinesOf(env).stepMs + LEASE_MARGIN_MS;
}
