/**
 * The user-account level of a thread's env: the owner's values, read from their UserAccount and
 * kept until the account says they changed; and the redactor a new thread's history is stored through.
 * @module
 */
import { accountOf } from "../account/api.js";
import type { EnvType } from "../protocol.js";
import type { EnvEntry, UserEnvSource } from "./env.js";
import { Redactor, type Secret, secretsOf } from "./redact.js";

/**
 * The user-account level of env resolution, read from the owner's UserAccount. The owner's values
 * are kept: the account tells this thread of every change (`accountEnvChanged`, registered with
 * the read), so a request costs no round trip to the account unless they changed. Another user's
 * values are read live.
 */
export class UserEnv implements UserEnvSource {
  private values: Record<string, { value: string; type: EnvType }> = {};
  /** Secret values the owner's account no longer holds, still redacted (src/account/retired-secrets.ts). */
  private retiredValues: string[] = [];
  /** Bumped whenever the kept values are replaced (the redactor rebuilds then). */
  version = 0;
  /** Change notices received, and the count the kept values are current for (-1: never read). */
  private notices = 0;
  private currentFor = -1;
  private keptOwner: string | null = null;

  constructor(
    private readonly ns: () => DurableObjectNamespace | undefined,
    private readonly owner: () => string | null | undefined,
    /** This thread's id, registered with the account as a reader of its values. */
    private readonly self: () => string,
  ) {}

  async get(userId: string, name: string): Promise<EnvEntry | undefined> {
    const ns = this.ns();
    if (!ns) return undefined;
    let values: Record<string, { value: string; type: EnvType }>;
    if (userId === this.owner()) {
      await this.refresh();
      values = this.values;
    } else {
      values = await accountOf(ns, userId).envValues();
    }
    return Object.hasOwn(values, name) ? values[name] : undefined;
  }

  /** Whether the owner's values were read from their account, which then tells this thread of each change. */
  get registered(): boolean {
    return this.keptOwner !== null;
  }

  entries(): Array<[string, { value: string; type: EnvType }]> {
    return Object.entries(this.values);
  }

  /** The owner's secrets to redact: those the account holds, then those it replaced or deleted. */
  secrets(): Secret[] {
    return accountSecrets(this.entries(), this.retiredValues);
  }

  /**
   * Reloads the owner's values unless the kept ones are current; a thread without an owner or
   * binding has none. Answers undefined (no promise to wait for) when there is nothing to reload.
   */
  refresh(): Promise<void> | undefined {
    const ns = this.ns();
    const owner = this.owner();
    if (!ns || !owner) return undefined;
    if (this.currentFor === this.notices && this.keptOwner === owner) return undefined;
    return this.reload(ns, owner);
  }

  private async reload(ns: DurableObjectNamespace, owner: string): Promise<void> {
    const asOf = this.notices;
    const { values, retired } = await accountOf(ns, owner).threadEnv(this.self());
    // Kept as plain copies: an RPC answer carries a disposer of its own, a native function each.
    this.values = Object.fromEntries(Object.entries(values));
    this.retiredValues = [...retired];
    this.keptOwner = owner;
    this.version++;
    // A notice that arrived while asking leaves the values stale: the next request asks again.
    this.currentFor = asOf;
  }

  /**
   * How many change notices the account sent this thread (its env values, or its MCP servers):
   * what was read from the account before a notice is read again after it.
   */
  get generation(): number {
    return this.notices;
  }

  /** The account's values changed: the next request reads them again. */
  invalidate(): void {
    this.notices++;
  }
}

/**
 * What a new thread's `history` is stored through: the secrets the thread holds from its start
 * (its own env values and its owner's account values, retired ones too) replaced, as in every message it stores.
 */
export async function historyRedactor(accounts: DurableObjectNamespace | undefined, userId: string | null, threadEnv: Map<string, EnvEntry>): Promise<Redactor> {
  const owner = accounts && userId ? await accountOf(accounts, userId).threadEnv() : { values: {}, retired: [] };
  return new Redactor([...secretsOf(threadEnv), ...accountSecrets(Object.entries(owner.values), owner.retired)]);
}

/**
 * A user's account secrets to redact, the one list of them: the `secret` values the account holds,
 * then those it replaced or deleted and still keeps (`retired`, src/account/retired-secrets.ts).
 */
export function accountSecrets(values: Iterable<[string, { value: string; type: string }]>, retired: readonly string[]): Secret[] {
  return [...secretsOf(values), ...retired.map((value) => ({ name: "(retired)", value }))];
}
