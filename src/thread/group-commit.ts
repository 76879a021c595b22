/**
 * Group commit for a thread's journal: calls that need their rows durable before going on share
 * `storage.sync()`s, so under load a write costs close to one commit.
 * @module
 */

/**
 * At most one sync runs at a time. A flush asked while none runs starts one at once; flushes
 * asked while one runs wait for the next, which starts when it ends and covers all of them
 * (their rows were written before they asked). No flush is ever answered by a sync that started
 * before it was asked.
 */
export class GroupCommit {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  /** Syncs started so far. */
  syncs = 0;

  constructor(private readonly sync: () => Promise<void>) {}

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
