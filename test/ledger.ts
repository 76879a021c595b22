/**
 * An outside system for guarantee tests: a Durable Object that counts every execution of a fixture
 * tool's effect, by effect key, raw (no deduplication). It lives outside the thread, so a crash of
 * the thread cannot roll it back — exactly like a payment provider.
 * @module
 */
import { DurableObject } from "cloudflare:workers";

/** Executions recorded by effect key; `runs` counts every one. */
export class Ledger extends DurableObject {
  private init(): void {
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS executions (effect_key TEXT PRIMARY KEY, runs INTEGER NOT NULL)");
  }

  /** Records one execution; returns how many the key has now. */
  async record(effectKey: string): Promise<{ runs: number }> {
    this.init();
    return this.ctx.storage.sql
      .exec<{ runs: number }>(
        "INSERT INTO executions (effect_key, runs) VALUES (?, 1) ON CONFLICT(effect_key) DO UPDATE SET runs = runs + 1 RETURNING runs",
        effectKey,
      )
      .one();
  }

  /**
   * How often call `callId` of thread `threadId` ran, over every lifetime of the thread: the keys
   * `<threadId>:<callId>` and `<threadId>.<8 hex digits>:<callId>` (a thread's branches).
   */
  async runsOf(threadId: string, callId: string): Promise<{ runs: number }> {
    this.init();
    const key = new RegExp(`^${threadId}(\\.[0-9a-f]{8})?:`);
    const rows = this.ctx.storage.sql.exec<{ effect_key: string; runs: number }>("SELECT effect_key, runs FROM executions WHERE substr(effect_key, 1, ?) = ?", threadId.length, threadId).toArray();
    return { runs: rows.filter((r) => key.test(r.effect_key) && r.effect_key.slice(r.effect_key.indexOf(":") + 1) === callId).reduce((n, r) => n + r.runs, 0) };
  }

  /** How often a key ran; 0 when never seen. */
  async read(effectKey: string): Promise<{ runs: number }> {
    this.init();
    return this.ctx.storage.sql.exec<{ runs: number }>("SELECT runs FROM executions WHERE effect_key = ?", effectKey).toArray()[0] ?? { runs: 0 };
  }
}

/** The ledger stub the fixture tools use. */
export function ledger(env: { LEDGER: DurableObjectNamespace }): DurableObjectStub<Ledger> {
  return env.LEDGER.get(env.LEDGER.idFromName("ledger")) as DurableObjectStub<Ledger>;
}
