/**
 * Background runs: an agent called as a tool with `background: true` runs detached in a child
 * thread of its own (src/run/agent-tool.ts) and its call answers at once with the run's id. The
 * child's completion (result, failure or stop) is delivered to this thread exactly once: the run's
 * row moves from `running` to its end in one transaction with the message it posts (the next
 * turn takes it), so however often it is looked for, it is posted once.
 *
 * It is looked for whenever the child tells this thread its turn ended (`childChanged`), and by
 * this thread's one alarm every `RUN_CHECK_MS` while a run is open (the child's word can be lost
 * to a crash or an eviction of either side, or a deploy): nothing depends on a request staying open.
 * @module
 */
import { WeftError, echoedValue, isWeftError, quotedValue } from "../errors.js";
import type { RpcResult } from "../rpc.js";
import { ownerOf } from "../run/agent-tool.js";
import type { ChildAnswer } from "../ports/threads.js";
import type { TurnRunner } from "../run/turn-runner.js";
import type { RunControl, RunInfo, RunWorld } from "../run/world.js";
import type { RunEnd, RunStore } from "./store.js";

/** How often (ms) this thread's alarm asks a running run's child how it stands. */
export const RUN_CHECK_MS = 30_000;
/** How long `state.runs.wait` waits by default (ms). */
const WAIT_MS = 60_000;
/** How long a stop inside a turn waits for the stopped child's answer (ms); a child still busy then is answered `running`. */
const STOP_WAIT_MS = 5_000;

/** What the runs need of their Durable Object. */
export interface RunHost {
  /** The thread's run world and turn runner; null when there is no thread (or it is being removed). */
  running(): { world: RunWorld; runner: TurnRunner } | null;
  /** Makes sure the alarm fires by `at` (epoch ms) at the latest. */
  wakeBy(at: number): Promise<void>;
}

/** The text of a completion message, as the next turn's model reads it. */
function completionText(run: RunInfo, end: RunEnd, left: number): string {
  const what = end.status === "completed" ? `completed:\n${end.answer}` : `${end.status}${end.error ? `: ${end.error}` : ""}${end.answer ? `\n${end.answer}` : ""}`;
  return `[background run ${run.runId} (agent ${run.agentId}) ${what}]\n[${left === 0 ? "no background run is still running" : `${left} background run${left === 1 ? " is" : "s are"} still running`}]`;
}

/** The id of the run the call `callId` starts: one run per call, found again by a repeat. */
const runIdOf = (callId: string): string => `run_${callId}`;

/** The background runs of one thread. */
export class BackgroundRuns implements RunControl {
  constructor(
    readonly store: RunStore,
    private readonly host: RunHost,
  ) {}

  private world(): { world: RunWorld; runner: TurnRunner } {
    const r = this.host.running();
    if (!r) throw new WeftError("thread_not_found", "no such thread");
    return r;
  }

  started(callId: string, agentId: string, childThreadId: string): RunInfo {
    const { world } = this.world();
    const runId = runIdOf(callId);
    const now = Date.now();
    if (!this.store.get(runId)) {
      this.store.insert(runId, callId, agentId, childThreadId, now, now + RUN_CHECK_MS);
      world.emit("run_started", { runId, agentId, childThreadId, callId });
      void this.host.wakeBy(now + RUN_CHECK_MS);
      // The child may have ended before this row was written: its word then found no run.
      void this.collect().catch(() => undefined);
    }
    return this.store.get(runId)!;
  }

  startedBy(callId: string): RunInfo | undefined {
    return this.store.get(runIdOf(callId));
  }

  list(): RunInfo[] {
    return this.store.list(1000);
  }

  get(runId: string): RunInfo {
    const run = this.store.get(runId);
    if (!run) throw new WeftError("run_not_found", `no background run ${quotedValue(runId)} in this thread`, { runId: echoedValue(runId) });
    return run;
  }

  /** When the alarm must fire next for the runs (epoch ms), or null when none runs. */
  dueAt(): number | null {
    return this.store.nextCheck();
  }

  /**
   * The alarm's part: asks the children of runs due a look (never waiting for a running turn),
   * and keeps the alarm armed for the next look. The alarm may fire before a look is due (the
   * watchdog's firing); that firing consumed it, so it is armed again here, or the look was lost.
   */
  async poll(): Promise<void> {
    const next = this.store.nextCheck();
    if (next !== null && next <= Date.now()) await this.collect(false);
    const after = this.store.nextCheck();
    if (after !== null) await this.host.wakeBy(after);
  }

  /**
   * Asks each running run's child how it stands and delivers each that ended: its row ends and
   * its message is posted in one transaction, with a `run_finished` event; a turn then takes the
   * messages. A child that cannot be asked is asked again later; one that is gone ends `failed`.
   * Nothing is delivered while a turn runs here (the runs it starts are not all recorded yet, so
   * a completion could not say how many are left): with `afterTurn` this waits for the turn to
   * end, without it (the alarm) the runs are looked at again later.
   * @returns how many completions this call delivered.
   */
  async collect(afterTurn = true): Promise<number> {
    let r = this.host.running();
    if (!r || this.store.nextCheck() === null) return 0;
    if (r.runner.active) {
      if (!afterTurn) return this.later();
      await r.runner.idle();
      r = this.host.running();
      if (!r) return 0;
    }
    const { world, runner } = r;
    const open = this.store.open(100);
    if (open.length === 0) return 0;
    const owner = ownerOf(world);
    const ends = await Promise.all(
      open.map(async (run): Promise<RunEnd | null> => {
        try {
          const a = await world.peers.answer(owner, run.childThreadId, false);
          if (a.status === "completed" || a.status === "failed" || a.status === "stopped") return { status: a.status, answer: a.answer, ...(a.error ? { error: a.error } : {}) };
        } catch (e) {
          // Deleted (by its owner): the run can never end otherwise.
          if (isWeftError(e) && e.code === "thread_not_found") return { status: "failed", answer: "", error: "its child thread is gone" };
        }
        return null;
      }),
    );
    if (!this.host.running()) return 0;
    // A turn began while the children were asked (a message came): after it, as above.
    if (runner.active) return afterTurn ? runner.idle().then(() => this.collect()) : this.later();
    const now = Date.now();
    let delivered = 0;
    for (const [i, run] of open.entries()) {
      const end = ends[i];
      if (!end) this.store.checkAt(run.runId, now + RUN_CHECK_MS);
      else if (this.deliver(world, run, end, now)) delivered++;
    }
    if (delivered > 0) void runner.resume().catch(() => undefined);
    const next = this.store.nextCheck();
    if (next !== null) await this.host.wakeBy(next);
    return delivered;
  }

  /** Every open run looked at again `RUN_CHECK_MS` from now; none delivered. */
  private async later(): Promise<number> {
    const at = Date.now() + RUN_CHECK_MS;
    for (const run of this.store.open(100)) this.store.checkAt(run.runId, at);
    await this.host.wakeBy(at);
    return 0;
  }

  /** Delivers one completion, once: false when it was delivered already. */
  private deliver(world: RunWorld, run: RunInfo, end: RunEnd, now: number): boolean {
    const done = this.store.atomically(() => {
      if (!this.store.finish(run.runId, end, now)) return false;
      world.store.turns.enqueue({ role: "user", content: completionText(run, end, this.store.openCount()), metadata: { runId: run.runId } }, now);
      return true;
    });
    if (done) world.emit("run_finished", { runId: run.runId, agentId: run.agentId, childThreadId: run.childThreadId, status: end.status, ...(end.error ? { error: end.error } : {}) });
    return done;
  }

  async wait(runIds: string[], timeoutMs = WAIT_MS): Promise<RunInfo[]> {
    const { world } = this.world();
    const owner = ownerOf(world);
    const pending = runIds.map((id) => this.get(id)).filter((run) => run.status === "running");
    const answers = new Map<string, ChildAnswer>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(pending.map((run) => world.peers.answer(owner, run.childThreadId, true).then((a) => void answers.set(run.runId, a), () => undefined))),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    // Delivered as usual (after the turn, when a tool waits inside one); answered from the children meanwhile.
    void this.collect().catch(() => undefined);
    return runIds.map((id) => {
      const run = this.get(id);
      const a = answers.get(id);
      if (run.status !== "running" || !a || (a.status !== "completed" && a.status !== "failed" && a.status !== "stopped")) return run;
      return { ...run, status: a.status, answer: a.answer, ...(a.error ? { error: a.error } : {}) };
    });
  }

  async stop(runId: string): Promise<RunInfo> {
    const { world } = this.world();
    const run = this.get(runId);
    if (run.status !== "running") return run;
    try {
      await world.peers.stop(ownerOf(world), run.childThreadId);
    } catch (e) {
      if (!isWeftError(e) || e.code !== "thread_not_found") throw e;
    }
    // Called by a tool inside a turn, delivering now would wait for that turn, which waits on this
    // call: the completion is delivered after it, and the stop answers from the child meanwhile.
    if (this.host.running()?.runner.active) return (await this.wait([runId], STOP_WAIT_MS))[0]!;
    // The child's turn ends stopped and tells this thread; a stop that found no turn running ends nothing.
    await this.collect();
    return this.get(runId);
  }
}
