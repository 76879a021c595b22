/**
 * An outside system for guarantee tests: a Durable Object that records every effect a fixture
 * tool performs, keyed by effect key. It lives outside the thread, so a crash of the thread
 * cannot roll it back — exactly like a payment provider.
 * @module
 */
import { DurableObject } from "cloudflare:workers";

/** Effects recorded by key: `runs` counts executions; `applied` is deduplicated like a provider. */
export class Ledger extends DurableObject {
  private init(): void {
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS effects (effect_key TEXT PRIMARY KEY, runs INTEGER NOT NULL, applied INTEGER NOT NULL)");
  }

  /** Records one execution; `dedup` collapses repeats of the same key into one applied effect. */
  async record(effectKey: string, dedup: boolean): Promise<{ runs: number; applied: number }> {
    this.init();
    return this.ctx.storage.sql
      .exec<{ runs: number; applied: number }>(
        `INSERT INTO effects (effect_key, runs, applied) VALUES (?, 1, 1)
         ON CONFLICT(effect_key) DO UPDATE SET runs = runs + 1, applied = applied + (CASE WHEN ? THEN 0 ELSE 1 END)
         RETURNING runs, applied`,
        effectKey,
        dedup ? 1 : 0,
      )
      .one();
  }

  /** How often a key ran, and how many effects it applied; zeros when never seen. */
  async read(effectKey: string): Promise<{ runs: number; applied: number }> {
    this.init();
    return this.ctx.storage.sql.exec<{ runs: number; applied: number }>("SELECT runs, applied FROM effects WHERE effect_key = ?", effectKey).toArray()[0] ?? {
      runs: 0,
      applied: 0,
    };
  }
}

/** The ledger stub the fixture tools use. */
export function ledger(env: { LEDGER: DurableObjectNamespace }): DurableObjectStub<Ledger> {
  return env.LEDGER.get(env.LEDGER.idFromName("ledger")) as DurableObjectStub<Ledger>;
}
