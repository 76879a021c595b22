/**
 * Group commit for a thread's journal: calls that need their rows durable before going on share
 * `storage.sync()`s and the commits under them, so under load a write costs less than one commit.
 * @module
 */

const NOTHING = (): void => undefined;

/**
 * One request in this many starts a sync after its work even when none came while the last one
 * ran (`GroupCommit.batched`): the probe that finds requests coming together again.
 */
export const PROBE_EVERY = 32;

/**
 * Milliseconds after a request came while a sync ran during which every request starts a sync
 * after its work (`GroupCommit.batched`): requests that come together keep finding one to wait for.
 */
export const BATCHING_MS = 50;

/**
 * At most one sync runs at a time. A flush asked while none runs starts one at once; flushes
 * asked while one runs wait for the next, which starts when it ends and covers all of them
 * (their rows were written before they asked, or are written by `beforeSync` just before it
 * starts). No flush is ever answered by a sync that started before it was asked.
 *
 * workerd commits a Durable Object's SQLite writes in an implicit transaction at the end of the
 * event that made them, so rows written in one event share one commit and one `fsync`, and rows
 * written in separate events (each request's delivery is one) get one each. A row that would
 * wait for the next sync anyway can instead be written by `beforeSync`, with every other such
 * row, in the event where the running sync ended: there the calls it covered write their
 * results, and all of it commits once (see `CallStore.defer`).
 */
export class GroupCommit {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  /** Syncs started so far for flushes (each awaited by someone). */
  syncs = 0;
  /** Syncs started so far by {@link batched} alone, after a request's work, which nothing awaits. */
  trackingSyncs = 0;

  /**
   * @param sync makes every write so far durable (`storage.sync()`).
   * @param beforeSync runs right before each sync starts, in the same synchronous step, so what
   * it writes is covered by that sync; it must not throw.
   */
  constructor(
    private readonly sync: () => Promise<void>,
    private readonly beforeSync: () => void = () => undefined,
  ) {}

  /** True while a sync runs: a flush asked now is answered by the next one. */
  get syncing(): boolean {
    return this.running !== null;
  }

  /**
   * Runs a request's `work` (a direct call, a person's decision) so that requests which arrive
   * while the thread's last commit is unconfirmed share the next one: they wait for the running
   * sync to end and then run in the one event where it ended, so their writes go into one
   * implicit transaction, one commit for all of them instead of one each. A request that finds no
   * sync running runs at once. Waiting changes no order a promise rests on (nothing of theirs has
   * run, and each still writes its rows before any effect, behind the output gate or awaited as
   * before): it only groups the writes.
   *
   * After a request's work settles (either way), a sync starts when none runs and a request came
   * while one ran in the last {@link BATCHING_MS} ms, or as a probe every {@link PROBE_EVERY}th
   * request, so those that come before that commit is confirmed see it. A thread whose requests
   * come one at a time, or far apart, starts a sync for a few only.
   */
  batched<T>(work: () => Promise<T>): Promise<T> {
    const running = this.running;
    if (running === null) return this.tracked(work());
    this.contendedAt = Date.now();
    const go = () => this.tracked(work());
    return running.then(go, go);
  }

  /** When a request last came while a sync ran (ms since the epoch). */
  private contendedAt = Number.NEGATIVE_INFINITY;
  /** Requests {@link batched} ran since its last probe. */
  private sinceProbe = 0;

  /** `done`, with a sync started after it as {@link batched} says. */
  private tracked<T>(done: Promise<T>): Promise<T> {
    done.then(this.track, this.track);
    return done;
  }

  private readonly track = (): void => {
    if (this.running !== null) return;
    if (Date.now() - this.contendedAt > BATCHING_MS && ++this.sinceProbe < PROBE_EVERY) return;
    this.sinceProbe = 0;
    this.start(true).catch(NOTHING);
  };

  flush(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.start();
      });
    return this.next;
  }

  private start(tracking = false): Promise<void> {
    this.beforeSync();
    if (tracking) this.trackingSyncs++;
    else this.syncs++;
    const run = this.sync();
    this.running = run;
    // Registered before any caller's reaction, so `running` is cleared before a caller goes on.
    // Not `finally`: it makes two more promises per sync.
    const done = () => this.done(run);
    run.then(done, done);
    return run;
  }

  private done(run: Promise<void>): void {
    if (this.running === run) this.running = null;
  }
}
