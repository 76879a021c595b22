/**
 * An execution as a value. One `Execution` exists per run: a turn, and (nested inside it) each
 * prompt or agent call. It owns everything about that run (id, abort signal, sides and step
 * counts, stop requests, scratch `context`, model, depth, prompt path) and is handed down
 * explicitly: the turn loop, the dispatch pipeline and every `ThreadState` built for its calls
 * read it from their argument, never from a field shared by the whole thread. Work outside any
 * run (a direct call, a queued call drained at rest, an approval) gets `null`.
 * @module
 */
import type { Message } from "../protocol.js";
import type { Model } from "../models/model.js";
import type { CallExecution } from "../calls/call.js";
import type { ExecutionState } from "../tools/thread-state.js";

/** One of the two sides of a dual-sided agent; one-sided agents run side `a` only. */
export type Side = "a" | "b";

/** Model request/response cycles taken, overall and per side. */
export interface StepCounts {
  total: number;
  a: number;
  b: number;
}

/** What a new execution starts from. */
export interface ExecutionInit {
  /** Unique id of the run (a turn's id for a turn). */
  flowId: string;
  /** The model of side a (and of a one-sided run). */
  model: Model;
  /** Models tried in order when a step of `model` fails with a provider error after its retries. */
  fallbacks?: readonly Model[];
  /** Side b's own model (and its fallbacks) in a two-sided run; absent: side b uses side a's. */
  sideB?: { model: Model; fallbacks?: readonly Model[] };
  /** The live persisted history this execution sees (`messageHistory`). */
  history: () => Message[];
  /** Side that takes the first step; default `a`. */
  side?: Side;
  /** Counts carried over when a turn resumes after a restart or a person's decision. */
  steps?: StepCounts;
  /** A side `forceTurn` asked for before the turn was cut or waited, not yet taken by a step. */
  forced?: Side | null;
  /** Keeps a side `forceTurn` asks for (durably), so a restart or a wait before the next step keeps it. */
  keepForced?: (side: Side) => void;
}

/** A nested run: a prompt or agent called as a tool from inside `parent`. */
export interface ChildInit extends ExecutionInit {
  /** Name of the prompt (or agent) the child runs; appended to `promptPath`. */
  promptName: string;
}

/** The state of one run, passed down explicitly (see the module doc). */
export class Execution implements CallExecution {
  readonly flowId: string;
  /** The execution this one is nested in, or null for a turn. */
  readonly parent: Execution | null;
  /** 0 for a turn; parent depth + 1 for a nested prompt or agent call. */
  readonly depth: number;
  /** Names of the prompts on the way down from the turn to this execution. */
  readonly promptPath: readonly string[];
  /** Scratch shared by the calls of this run (the Standard Agents tools API's `context`); a child shares its parent's. */
  readonly context: Record<string, unknown>;
  /** The Standard Agents tools API's `ExecutionState` view handed to tools as `state.execution`. */
  readonly state: ExecutionState;
  /** The side taking the current step. */
  currentSide: Side;
  private readonly controller = new AbortController();
  private readonly counts: StepCounts;
  private readonly models: Readonly<Record<Side, { model: Model; fallbacks: readonly Model[] }>>;
  private stopRequest: { by: Side } | null = null;
  private forced: Side | null;
  private readonly keepForced: ((side: Side) => void) | undefined;

  private constructor(init: ExecutionInit, parent: Execution | null, promptName?: string) {
    this.flowId = init.flowId;
    this.forced = init.forced ?? null;
    this.keepForced = init.keepForced;
    const sideA = { model: init.model, fallbacks: init.fallbacks ?? [] };
    this.models = { a: sideA, b: init.sideB ? { model: init.sideB.model, fallbacks: init.sideB.fallbacks ?? [] } : sideA };
    this.parent = parent;
    this.depth = parent ? parent.depth + 1 : 0;
    this.promptPath = parent && promptName ? [...parent.promptPath, promptName] : [];
    this.context = parent ? parent.context : {};
    this.currentSide = init.side ?? "a";
    this.counts = { ...(init.steps ?? { total: 0, a: 0, b: 0 }) };
    // Stopping the parent stops every execution nested in it.
    if (parent) {
      if (parent.signal.aborted) this.controller.abort(parent.signal.reason);
      else parent.signal.addEventListener("abort", () => this.controller.abort(parent.signal.reason), { once: true });
    }
    this.state = stateView(this, init.history);
  }

  /** Starts the execution of a turn. */
  static forTurn(init: ExecutionInit): Execution {
    return new Execution(init, null);
  }

  /** Starts an execution nested in `parent` (a prompt or agent called as a tool). */
  static nested(parent: Execution, init: ChildInit): Execution {
    return new Execution(init, parent, init.promptName);
  }

  /** The model of the side taking the current step: each side of a two-sided agent talks to its own. */
  get model(): Model {
    return this.models[this.currentSide].model;
  }

  /** Models tried in order when a step of `model` fails with a provider error after its retries (the current side's). */
  get fallbacks(): readonly Model[] {
    return this.models[this.currentSide].fallbacks;
  }

  /** Fires when the thread is stopped (or the parent execution is); never reset. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts this execution and every one nested in it. */
  abort(reason: unknown = new Error("thread stopped")): void {
    this.controller.abort(reason);
  }

  /** A copy of the step counts. */
  get steps(): StepCounts {
    return { ...this.counts };
  }

  /** Records one model request/response cycle for the current side; returns the total. */
  countStep(): number {
    this.counts.total += 1;
    this.counts[this.currentSide] += 1;
    return this.counts.total;
  }

  /** Asks the run to end before its next model step; the calling tool finishes normally. */
  requestStop(): void {
    this.stopRequest ??= { by: this.currentSide };
  }

  /** True once `stop()` was called or the signal fired: no further model step starts. */
  get stopped(): boolean {
    return this.stopRequest !== null || this.signal.aborted;
  }

  /** The side that called `stop()`, if one did. */
  get stoppedBy(): Side | undefined {
    return this.stopRequest?.by;
  }

  /** Asks that `side` takes the next step (two-sided agents). */
  forceTurn(side: Side): void {
    this.forced = side;
    this.keepForced?.(side);
  }

  /** The side forced for the next step, once; null when none was. */
  takeForcedSide(): Side | null {
    const side = this.forced;
    this.forced = null;
    return side;
  }
}

/** The `ExecutionState` tools see: live getters over the execution, never a copy. */
function stateView(execution: Execution, history: () => Message[]): ExecutionState {
  return {
    flowId: execution.flowId,
    get currentSide() {
      return execution.currentSide;
    },
    get stepCount() {
      return execution.steps.total;
    },
    get sideAStepCount() {
      return execution.steps.a;
    },
    get sideBStepCount() {
      return execution.steps.b;
    },
    get stopped() {
      return execution.stopped;
    },
    get stoppedBy() {
      return execution.stoppedBy;
    },
    get messageHistory() {
      return history();
    },
    forceTurn(side) {
      if (side !== "a" && side !== "b") throw new TypeError(`forceTurn: expected "a" or "b", got ${JSON.stringify(side)}`);
      execution.forceTurn(side);
    },
    stop() {
      execution.requestStop();
    },
    get abortSignal() {
      return execution.signal;
    },
    get promptPath() {
      return [...execution.promptPath];
    },
  };
}
