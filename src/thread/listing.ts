/**
 * A thread in its owner's account: counted against the per-user limit, listed in
 * `GET /threads`, and a direct call's scratch thread counted (kept for its Idempotency-Key) or
 * kept as an ordinary session (a call in it waits for a person).
 * @module
 */
import { type AccountApi, accountOf, claimThread } from "../account/api.js";
import { type RpcResult, rpcFailure } from "../rpc.js";
import type { InFlight } from "./removal.js";
import type { ThreadMeta } from "./store/meta.js";

/** What the listing needs of its Durable Object. */
export interface ListingParts {
  /** The Worker's env: `ACCOUNT` (none: no accounts) and the per-user limit's setting. */
  readonly env: Readonly<Record<string, unknown>> & { ACCOUNT?: DurableObjectNamespace };
  /** This thread's id. */
  readonly threadId: string;
  /** The thread's record (the thread exists). */
  meta(): ThreadMeta;
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
    // Listed first: a refusal leaves the thread scratch, and a crash between the two leaves an
    // entry the next keep (the alarm's) finds listed already.
    // A scratch thread counted already (kept for its Idempotency-Key) is listed in its own slot.
    const listed = await this.listInAccount({ ...meta, ephemeral: false }, Date.now(), mustKeep);
    if (!listed.ok) return listed;
    meta.ephemeral = false;
    delete meta.counted;
    this.parts.writeMeta(meta);
    return listed;
  }

  /**
   * Counts a direct call's scratch thread, kept to answer a repeat of its `Idempotency-Key` (up to
   * `SCRATCH_TTL_MS` (guard.ts)), against its owner's per-user limit before its call runs, unlisted
   * ({@link claimThread}): at the limit it is removed and the refusal (`too_many_threads`) is the
   * answer, as for a create, so nothing ran and nothing is kept. Its removal (its alarm's) frees
   * the slot. A thread counted already (a repeat of the key) or kept as a session passes.
   */
  async countScratch(): Promise<RpcResult<null>> {
    const counted = await this.takeScratchSlot(false);
    if (!counted.ok) await this.parts.removeAll();
    return counted;
  }

  /** Marks the scratch thread counted and takes its unlisted slot (`mustKeep`: past the limit too). */
  takeScratchSlot(mustKeep: boolean): Promise<RpcResult<null>> {
    // Counted in `inFlight`: a removal that begins meanwhile (its alarm's) frees the slot only
    // after it is taken; one under way already takes none (`thread_not_found`, as for a call).
    return this.parts.inFlight
      .run(async (): Promise<RpcResult<null>> => {
        const meta = this.parts.meta();
        if (!meta.ephemeral) return { ok: true, value: null };
        if (!meta.counted) {
          // Marked before the slot is taken: after a crash between the two, its removal frees a
          // slot it does not hold (nothing), never leaves one taken.
          meta.counted = true;
          this.parts.writeMeta(meta);
        }
        return this.listInAccount(meta, meta.createdAt, mustKeep);
      })
      .catch(rpcFailure);
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

  /**
   * The account that counts this thread: none for a scratch thread that is not counted, one
   * without an owner, or without accounts.
   */
  ownerAccount(meta: ThreadMeta): AccountApi | null {
    return (!meta.ephemeral || meta.counted === true) && this.parts.env.ACCOUNT && meta.userId ? accountOf(this.parts.env.ACCOUNT, meta.userId) : null;
  }
}
