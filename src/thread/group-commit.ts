/**
 * Group commit for a thread's journal: calls that need their rows durable before going on share
 * `storage.sync()`s and the commits under them, so under load a write costs less than one commit.
 * @module
 */

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
  /** Syncs started so far. */
  syncs = 0;

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

  private start(): Promise<void> {
    this.beforeSync();
    this.syncs++;
    const run = this.sync();
    this.running = run;
    // Registered before any caller's reaction, so `running` is cleared before a caller goes on.
    // Not `finally`: it makes two more promises per sync. Inline arrows: a named one costs a
    // defineProperty per call in a bundle that keeps names.
    run.then(
      () => this.done(run),
      () => this.done(run),
    );
    return run;
  }

  private done(run: Promise<void>): void {
    if (this.running === run) this.running = null;
  }
}
