/**
 * A thread in its owner's account: counted against the per-user limit, listed in
 * `GET /threads`, and a direct call's scratch thread counted (kept for its Idempotency-Key) or
 * kept as an ordinary session (a call in it waits for a person).
 * @module
 */
import { type AccountApi, accountOf, claimThread } from "../account/api.js";
import { type RpcResult, rpcFailure } from "../rpc.js";
import { type InFlight, cutByRemoval } from "./removal.js";
import type { ThreadMeta } from "../ports/store.js";

/** What the listing needs of its Durable Object. */
export interface ListingParts {
  /** The Worker's env: `ACCOUNT` (none: no accounts) and the per-user limit's setting. */
  readonly env: Readonly<Record<string, unknown>> & { ACCOUNT?: DurableObjectNamespace };
  /** This thread's id. */
  readonly threadId: string;
  /** The thread's record (the thread exists). */
  meta(): ThreadMeta;
  /** Whether `meta` is still the record of the thread here: not removed (its removal may be under way), nor made again on the id. */
  alive(meta: ThreadMeta): boolean;
  /** Stores the changed record. */
  writeMeta(meta: ThreadMeta): void;
  /** Work running in this instance; a removal waits for it. */
  readonly inFlight: InFlight;
  /** Removes the whole thread (`ThreadObject.removeAll`). */
  removeAll(): Promise<void>;
}

/** The account side of one thread (see the module doc). */
export class AccountListing {
  constructor(private readonly parts: ListingParts) {}

  /**
   * Makes a direct call's scratch thread an ordinary session of its owner, listed in
   * `GET /threads`, which its alarm no longer removes: a call in it waits for a person (an
   * approval, or a write a restart parked), and only a listed thread can be found to decide it.
   * It counts against the owner's per-user limit ({@link claimThread}); `mustKeep` (a write that
   * began waits in it) lists it past the limit, as refusing would leave the write unsettleable.
   * @returns the account's refusal (`too_many_threads`) when the limit holds; the thread stays scratch then.
   */
  async keepAsSession(mustKeep: boolean): Promise<RpcResult<null>> {
    const meta = this.parts.meta();
    if (!meta.ephemeral) return { ok: true, value: null };
    // Counted: a removal waits for it. Listed first: a refusal leaves the thread scratch, and a
    // crash between the two leaves an entry the next keep (the alarm's) finds listed already.
    // A scratch thread counted already (kept for its Idempotency-Key) is listed in its own slot.
    return this.counted(async () => {
      // Marked counted before it is listed: its removal unlists it, after a restart between the two too.
      const counted = meta.counted === true;
      if (!counted) this.parts.writeMeta(Object.assign(meta, { counted: true as const }));
      const listed = await this.listInAccount({ ...meta, ephemeral: false }, meta.createdAt, mustKeep);
      // Refused: as it was (an uncounted one is counted by its alarm).
      if (!listed.ok && !counted && this.parts.alive(meta)) this.parts.writeMeta((delete meta.counted, meta));
      if (!listed.ok) return listed;
      // Removed meanwhile: its record must not overwrite a thread made again on the id.
      if (!this.parts.alive(meta)) throw cutByRemoval();
      meta.ephemeral = false;
      delete meta.counted;
      this.parts.writeMeta(meta);
      return listed;
    });
  }

  /** Runs `work` counted in `inFlight`, so a removal waits for it; what it throws (a cut) is its answer. */
  private counted(work: () => Promise<RpcResult<null>>): Promise<RpcResult<null>> {
    return this.parts.inFlight.run(work).catch(rpcFailure);
  }

  /**
   * Counts a direct call's scratch thread, kept to answer a repeat of its `Idempotency-Key` (up to
   * `SCRATCH_TTL_MS` (guard.ts)), against its owner's per-user limit before its call runs, unlisted
   * ({@link claimThread}): at the limit it is removed and the refusal (`too_many_threads`) is the
   * answer, as for a create, so nothing ran and nothing is kept. Its removal (its alarm's) frees
   * the slot. A thread counted already (a repeat of the key) or kept as a session passes.
   */
  async countScratch(): Promise<RpcResult<null>> {
    const meta = this.parts.meta();
    const counted = await this.takeScratchSlot(false);
    // Cut by a removal instead, it is gone already: one made again on the id is not this one.
    if (!counted.ok && this.parts.alive(meta)) await this.parts.removeAll();
    return counted;
  }

  /** Marks the scratch thread counted and takes its unlisted slot (`mustKeep`: past the limit too). */
  takeScratchSlot(mustKeep: boolean): Promise<RpcResult<null>> {
    // Counted in `inFlight`: a removal that begins meanwhile (its alarm's) frees the slot only
    // after it is taken; one under way already takes none (`thread_not_found`, as for a call).
    return this.counted(async () => {
      const meta = this.parts.meta();
      if (!meta.ephemeral) return { ok: true, value: null };
      if (!meta.counted) {
        // Marked before the slot is taken: after a crash between the two, its removal frees a
        // slot it does not hold (nothing), never leaves one taken.
        meta.counted = true;
        this.parts.writeMeta(meta);
      }
      return this.listInAccount(meta, meta.createdAt, mustKeep);
    });
  }

  /**
   * Counts the thread in its owner's account against the per-user limit ({@link claimThread}),
   * listed in `GET /threads` unless it is a (counted) scratch thread.
   */
  async listInAccount(meta: ThreadMeta, createdAt: number, mustKeep: boolean): Promise<RpcResult<null>> {
    const account = this.ownerAccount(meta);
    if (!account) return { ok: true, value: null };
    return claimThread(account, this.parts.env, { threadId: this.parts.threadId, agentId: meta.agentId, createdAt }, { mustKeep, listed: !meta.ephemeral });
  }

  /** Counts a thread about to be made in `userId`'s account, under the per-user limit (nothing is added when it is listed already). */
  claimNew(userId: string, agentId: string): Promise<RpcResult<null>> {
    const entry = { threadId: this.parts.threadId, agentId, createdAt: Date.now() };
    return this.parts.env.ACCOUNT ? claimThread(accountOf(this.parts.env.ACCOUNT, userId), this.parts.env, entry) : Promise.resolve({ ok: true, value: null });
  }

  /**
   * The account that counts this thread: none for a scratch thread that is not counted, one
   * without an owner, or without accounts.
   */
  ownerAccount(meta: ThreadMeta): AccountApi | null {
    return (!meta.ephemeral || meta.counted === true) && this.parts.env.ACCOUNT && meta.userId ? accountOf(this.parts.env.ACCOUNT, meta.userId) : null;
  }

  /** The account told the thread is gone: the one counting it, else (`readValues`: it is told of their changes) the owner's. */
  goneAccount(meta: ThreadMeta, readValues: boolean): AccountApi | null {
    return this.ownerAccount(meta) ?? (readValues && this.parts.env.ACCOUNT && meta.userId ? accountOf(this.parts.env.ACCOUNT, meta.userId) : null);
  }
}
