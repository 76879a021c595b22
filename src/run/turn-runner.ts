/**
 * Turns over time: the inbox, starting and resuming turns, waiting for people and their
 * decisions, stops, and the watchdog alarm that resumes a turn cut by a restart with no client
 * request needed. One turn's own course (begin, run, end) is in one-turn.ts, a person's decisions
 * in decisions.ts, and the first turn as a parent thread sees it in first-turn.ts.
 * @module
 */
import { WATCHDOG_MS } from "../config.js";
import type { StoredStep } from "../models/scripted.js";
import type { Message, ToolCallRequest } from "../protocol.js";
import type { Execution } from "./execution.js";
import type { RunWorld } from "./world.js";
import { noSuchThread } from "../errors.js";
import { type AdmittedTurn, type TurnSlot, admitInbox, deletedWhileAdmitted, refusedRows, runOneTurn } from "./one-turn.js";
import { FirstTurn } from "./first-turn.js";
import { Decisions } from "./decisions.js";
import { isUnfinished } from "./turn-table.js";
import { tellParent } from "./agent-tool.js";
import type { MessageContent } from "../content/parts.js";
import type { TurnRecord } from "../ports/store.js";
import type { TurnModelSettings } from "../models/settings.js";
import { inboxMessageOf } from "./turn-settings.js";

/** Runs a thread's turns. */
export class TurnRunner {
  private running: Promise<void> | null = null;
  /** The execution of the turn running now, so `stop` can reach it; null between turns. */
  private execution: Execution | null = null;
  /** The tail of the resumptions deciding what to start: they take turns (see `resume`). */
  private deciding: Promise<unknown> = Promise.resolve();
  /** Set by `close`: the thread is being removed, and nothing new starts. */
  private closed = false;

  constructor(
    private readonly engine: RunWorld,
    private readonly armAlarm: (delayMs: number) => void,
    /** How long the watchdog alarm waits; `WEFT_WATCHDOG_MS` overrides {@link WATCHDOG_MS}. */
    private readonly watchdogMs: number = WATCHDOG_MS,
  ) {
    this.firstTurn = new FirstTurn(engine, {
      active: () => this.active,
      stop: () => this.stop(),
      resume: () => this.resume(),
      onTurnEnd: (told) => this.turnEnds.push(told),
    });
    this.decisions = new Decisions(engine, { busy: () => this.busy, resume: () => this.resume(), checkOpen: this.checkOpen });
  }

  /** The first turn, as a parent reads, waits for and stops it when this thread is its child. */
  readonly firstTurn: FirstTurn;
  /** A person's decisions on the thread's calls; the waiting turn goes on after each. */
  readonly decisions: Decisions;

  /** Why the turn about to begin (or resume) was stopped, until its execution exists (see `stop`). */
  private stopping: string | null = null;
  /** A turn is about to begin: its messages are being admitted, or it is being started or resumed (see `stop`). */
  private opening = false;
  /** The execution of the turn that ran last, for the loop to see whether it was stopped. */
  private lastRun: Execution | null = null;

  /** What each turn gets from here: the watchdog, and where its execution is kept for `stop`. */
  private readonly slot: TurnSlot = {
    armWatchdog: () => this.armAlarm(this.watchdogMs),
    begun: (turnId, resumed, kept) => {
      const { turns } = this.engine.store;
      // Kept with the turn already (by `stop` at once, or moved from its inbox rows by the
      // admission); a resumed turn's is read from its row.
      const asked = resumed ? turns.stopRequested(turnId) : kept;
      if (asked !== undefined) this.stopping = asked;
      this.admission = null;
      this.heldByStop = false;
      return this.stopping ?? undefined;
    },
    hold: (execution) => {
      if (execution && this.stopping !== null) execution.abort(new Error(this.stopping));
      this.stopping = null;
      this.opening = false;
      this.execution = execution;
      if (execution) this.lastRun = execution;
    },
  };

  /** True while a turn runs in this instance. */
  get active(): boolean {
    return this.running !== null;
  }

  /**
   * True while a turn runs, waits for a person, or was cut by a restart and not yet resumed (its
   * stored status is still running): new messages queue, writes get session_busy.
   */
  get busy(): boolean {
    const status = this.engine.store.turns.latestStatus();
    return this.running !== null || status === "waiting" || status === "running";
  }

  /**
   * What `GET /threads/:id` says of the thread: `running` while a turn runs (or was cut by a
   * restart and resumes by itself), `waiting` while a turn or any call (a direct one too) waits for
   * a person, else `idle`.
   */
  status(): "idle" | "running" | "waiting" {
    const latest = this.engine.store.turns.latestStatus();
    if (this.active || latest === "running") return "running";
    return latest === "waiting" || this.engine.calls.waitsForPerson() ? "waiting" : "idle";
  }

  /** The admission of the turn about to begin (see `stop`): its inbox rows, and how to cut the wait for its hooks; null once it stored them. */
  private admission: { ids: readonly number[]; stop: (reason: string) => void } | null = null;
  /** A stop cut an admission's hooks: its rows wait (with the stop) for the next post, not admitted again at once (their hook may hang again). */
  private heldByStop = false;

  /** Whether messages wait that this instance admits by itself (a post admits any). */
  private admissionDue(): boolean {
    return !this.closed && !this.heldByStop && this.engine.store.turns.inboxSize() > 0;
  }

  /** Told which inbox rows an admission takes, the stop kept with them, if any, and how to stop it. */
  private readonly admit = (ids: readonly number[], stopAsked: string | undefined, stop: (reason: string) => void): void => {
    this.admission = { ids, stop };
    // An admission started over (a row was cancelled) keeps no stop of rows no longer in it.
    this.stopping = stopAsked ?? null;
  };

  /** No turn is about to begin (a hook refused its messages, or the loop ended): a stop asked as they were admitted has nothing to stop. */
  private noOpening(): false {
    this.stopping = null;
    this.admission = null;
    this.opening = false;
    return false;
  }

  /** Told when a turn of the loop ends (see `FirstTurn.settled`). */
  private turnEnds: Array<() => void> = [];

  /** Whether the newest turn goes on with no request: cut by a restart (`running`), or waiting for a person with a stop kept (it resumes to end stopped). */
  goesOnByItself(): boolean {
    const turn = this.unfinishedTurn();
    return turn !== undefined && (turn.status === "running" || this.engine.store.turns.stopRequested(turn.turnId) !== undefined);
  }

  /** Whether work is left unfinished: a running turn, a call without its result, a queued call, a waiting message. */
  hasUnfinishedWork(): boolean {
    const turns = this.engine.store.turns;
    return turns.latestStatus() === "running" || this.engine.calls.hasOpenCalls() || turns.inboxSize() > 0;
  }

  /** Whether `resume()` has anything to do: unfinished work, a call to recover (or approved before a restart), a turn waiting for a person, a parked direct call. */
  hasWorkToResume(): boolean {
    const { calls, store } = this.engine;
    return this.hasUnfinishedWork() || calls.recoverable() || store.turns.latestStatus() === "waiting" || calls.parkedDirect();
  }

  /**
   * Accepts a message. On a free thread it joins the history now, through the create-message hooks,
   * and a turn starts; else it waits in the inbox and joins (through the same hooks) when the next
   * turn starts. Its `modelSettings` ride with it (metadata) to the turn it begins. `enqueued` runs
   * in the transaction that takes the message in (a keyed request keeps its answer there).
   * @throws WeftError `hook_failed` when a create-message hook refused the message of a free
   * thread (nothing is stored, and the failed turn says why); `invalid_request` for settings the
   * agent does not allow (see `checkPostedSettings`); `agent_not_found` when the thread's agent
   * is no longer deployed (nothing is stored).
   */
  async postMessage(input: { content: MessageContent; role?: "user" | "system"; script?: StoredStep[]; modelSettings?: TurnModelSettings }, enqueued?: () => void): Promise<{ queued: boolean; message?: Message }> {
    this.checkOpen();
    this.engine.requireAgent();
    const { store } = this.engine;
    // Settings and parts ride in the inbox row's metadata; admitInbox lifts the parts out.
    const waiting = inboxMessageOf(this.engine, input);
    let mine = 0;
    store.atomically(() => {
      if (input.script && input.script.length > 0) store.script.add(input.script);
      mine = store.turns.enqueue(waiting);
      enqueued?.();
    });
    this.heldByStop = false;
    if (this.busy) {
      // A turn cut by a restart resumes now, not at the next watchdog; the message waits behind it.
      if (!this.running) void this.resume();
      return { queued: true };
    }
    const admitted = this.startWithInbox();
    // Rows a stop was kept with begin their turn alone (a restart came between): this one waits for the next.
    if (!this.admission?.ids.includes(mine)) {
      admitted.catch(() => undefined);
      return { queued: true };
    }
    let message: Message | undefined;
    try {
      [message] = await admitted;
    } catch (e) {
      // Another message of the admission was refused: this one waits for the next.
      if (!refusedRows(e).includes(mine)) return { queued: true };
      throw e;
    }
    // A DELETE cut a hook that held its admission: it was not stored. A stop did: it waits in the
    // inbox for the next admission (with the stop kept, its turn begins stopped).
    if (!message && this.closed) throw deletedWhileAdmitted();
    return message ? { queued: false, message } : { queued: true };
  }

  /**
   * Finishes durable work after a restart or a person's decision: resumes a cut or waiting turn,
   * recovers interrupted calls, drains the queue, starts a turn for waiting messages. However many
   * requests, alarms and decisions call it together, one at a time decides what to start (see
   * {@link resumeOnce}), so a turn is never run twice at once.
   */
  async resume(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      // Whatever brought us here (a decision) may be what the running turn waits for: look again
      // once it ends.
      if (this.running) this.armAlarm(this.watchdogMs);
      await this.idle();
      const decided = this.deciding.then(() => this.resumeOnce());
      this.deciding = decided.catch(() => undefined);
      if (await decided) break;
    }
    await this.idle();
  }

  /**
   * One look at what is left to do, holding `deciding`. Every await here lets other requests in,
   * so what it starts is read again right before it starts it. Resolves false when it found a turn
   * running (started meanwhile), for the caller to look again once that turn ends.
   */
  private async resumeOnce(): Promise<boolean> {
    if (this.closed) return true;
    if (this.running) return false;
    // A stop asked of the unfinished turn (before a restart, or while its calls were recovered): it
    // resumes stopped, and its calls end as the stop says instead of being recovered.
    const asked = this.unfinishedTurn();
    if (asked && this.engine.store.turns.stopRequested(asked.turnId) !== undefined) {
      this.start(asked);
      return true;
    }
    // Interrupted calls (and approvals given just before a restart) first, each once. Without
    // any, a turn resumes in this same step, so whoever asked sees it running at once.
    if (this.engine.calls.recoverable()) await this.engine.calls.recover();
    if (this.running) return false;
    const waiting = this.engine.store.turns.latest();
    // Nothing to do until a person decides; the decision calls resume again.
    if (waiting?.status === "waiting" && (await this.stillWaiting(waiting.turnId))) return true;
    if (this.running) return false;
    const latest = this.unfinishedTurn();
    if (latest) {
      this.start(latest);
      return true;
    }
    await this.engine.calls.resumeDirect();
    await this.engine.calls.drain(null);
    // A hook's refusal is recorded as a failed turn; nobody here waits for the answer.
    if (!this.running && this.admissionDue()) this.startWithInbox().catch(() => undefined);
    return true;
  }

  /** Resolves when no turn is running in this instance. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Stops the turn: a running one's signal fires and no further model step starts; a waiting one
   * resumes already stopped, so its open step closes through the pipeline like a running one's.
   * Either way every open call of the turn then ends (the call runner's `stop`) and the thread is free.
   */
  stop(reason = "thread stopped"): boolean {
    const { turns } = this.engine.store;
    const unfinished = this.unfinishedTurn();
    if (this.running) {
      // Between two turns of the loop nothing runs to stop: a turn that begins after is not this stop's.
      if (!this.execution && !this.opening) return false;
      // Kept with the turn (or with the messages being admitted to begin it): a restart before it
      // ends resumes it stopped, or admits them into a turn that begins stopped.
      if (unfinished) turns.requestStop(unfinished.turnId, reason);
      else turns.stopAdmission(this.admission?.ids ?? [], reason);
      // Its execution not made yet (being admitted, or resumed): it begins stopped, and its admission waits for no hook.
      if (this.execution) this.execution.abort(new Error(reason));
      else this.stopping = reason;
      this.heldByStop ||= this.admission !== null;
      this.admission?.stop(reason);
      return true;
    }
    if (this.closed || !unfinished) return false;
    turns.requestStop(unfinished.turnId, reason);
    // With the stop, the watchdog: a restart before the turn resumes leaves it to the alarm (a
    // waiting thread keeps none).
    this.slot.armWatchdog();
    // Waiting, it resumes now, stopped; cut by a restart and not resumed yet (its calls may be
    // being recovered), it resumes stopped when that is done.
    if (unfinished.status === "waiting") this.start(unfinished);
    else void this.resume();
    return true;
  }

  /**
   * The thread is being removed: the running turn stops (as `stop`), and nothing new starts here
   * from now on: no turn, resumption or person's decision (those throw `thread_not_found`).
   */
  close(): void {
    this.closed = true;
    this.stop("thread deleted");
  }

  /** Resolves once no turn runs and no resumption is deciding what to start (after `close`, for good). */
  async settled(): Promise<void> {
    for (;;) {
      await this.deciding;
      if (!this.running) return;
      await this.idle();
    }
  }

  /** The newest turn while it is unfinished (running, waiting, or cut by a restart); its row is read only then. */
  private unfinishedTurn(): TurnRecord | undefined {
    const { turns } = this.engine.store;
    return isUnfinished(turns.latestStatus()) ? turns.latest() : undefined;
  }

  /** @throws WeftError `thread_not_found` once the thread is being removed (`close`). */
  private readonly checkOpen = (): void => {
    if (this.closed) throw noSuchThread();
  };

  /** Whether a call of the turn's open step, or one they queued, still waits for a person (the call runner's `turnWaits`). */
  private stillWaiting(turnId: string): Promise<boolean> {
    return this.engine.calls.turnWaits(turnId, this.engine.store.turns.pendingStep<ToolCallRequest>(turnId) ?? []);
  }

  /** Starts a turn for the inbox's messages; resolves with them once stored. Busy at once: a message posted meanwhile queues. */
  private startWithInbox(): Promise<Message[]> {
    this.opening = true;
    const admitted = admitInbox(this.engine, this.slot, this.admit);
    this.running = admitted
      .then(async (admission) => {
        // Stored, gone from the inbox, and begun: a stop now is kept with the turn's row.
        this.admission = null;
        await this.engine.flush();
        return admission?.turn;
      })
      .then(
        // Nothing was left to admit (every row cancelled meanwhile): no turn, as for a refusal.
        (turn) => (turn ? this.loop(turn) : void this.noOpening()),
        () => void this.noOpening(),
      )
      .finally(() => this.ended());
    return admitted.then((admission) => admission?.messages ?? []);
  }

  private start(resume: TurnRecord): void {
    // A stop kept with it stops it as it resumes (slot.begun reads it).
    this.opening = true;
    // The turn starts once what the request wrote is durable, and apart from the request.
    this.running = this.engine
      .flush()
      .then(() => this.loop(resume))
      .finally(() => this.ended());
  }

  /**
   * The turns stopped running. A child thread tells its parent again: the word each turn's end
   * sends (one-turn.ts) is sent while this runner still runs, so a parent that asks at once hears
   * `running` (a background run's completion then waited for the parent's next look).
   */
  private ended(): void {
    this.running = null;
    this.noOpening();
    // A message posted as the last admission was refused (or as the loop ended) gets its turn.
    if (this.admissionDue()) void this.resume().catch(() => undefined);
    if (this.engine.meta.parent && !this.closed) void tellParent(this.engine);
  }

  /** Runs turns while messages wait: `first` (a turn to resume, or one its messages' admission began), then the next admission's. */
  private async loop(first: TurnRecord | AdmittedTurn): Promise<void> {
    for (let next = first; ; ) {
      const end = await runOneTurn(this.engine, this.slot, next);
      for (const told of this.turnEnds.splice(0)) told();
      const ran = this.lastRun;
      this.lastRun = null;
      // A stopped turn leaves no call waiting: each takes the stop transition.
      if (ran?.signal.aborted) await this.engine.calls.stop(ran);
      if (end.status === "waiting" || this.closed) return;
      await this.engine.calls.recover();
      if (this.closed) return;
      await this.engine.calls.drain(null);
      // A message a hook refused has its failed turn recorded; whatever came after it still runs.
      let admitted = false;
      while (!admitted && this.admissionDue()) {
        this.opening = true;
        admitted = await admitInbox(this.engine, this.slot, this.admit).then(
          (admission) => (admission?.turn ? ((next = admission.turn), true) : this.noOpening()),
          () => this.noOpening(),
        );
      }
      // Being removed: no turn begins in the thread (its messages were admitted, and are removed with it).
      if (this.closed || !admitted) return;
    }
  }
}
