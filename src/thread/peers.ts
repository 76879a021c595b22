/**
 * The threads port over Durable Object RPC: child threads and parents are Thread objects of the
 * `THREAD` namespace, accounts are UserAccount objects of `ACCOUNT`; each refusal they answer
 * with is thrown as the WeftError it names.
 * @module
 */
import { WeftError } from "../errors.js";
import type { AccountEntry, AccountNotices, ChildAnswer, ChildThreadInput, ChildThreads, ThreadOwner } from "../ports/threads.js";
import { accountOf } from "../account/api.js";
import { type Caller, type RpcResult, unwrap } from "../rpc.js";
import type { CreateThreadInput } from "./api.js";

/** The part of a Thread stub another thread or an account uses. */
interface PeerStub {
  create(caller: Caller, input: CreateThreadInput, threadId: string): Promise<RpcResult<unknown>>;
  childAnswer(caller: Caller, wait: boolean): Promise<RpcResult<ChildAnswer>>;
  childChanged(caller: Caller): Promise<RpcResult<null>>;
  stop(caller: Caller, firstTurn: boolean): Promise<RpcResult<{ stopped: boolean }>>;
  accountEnvChanged(): Promise<{ live: boolean }>;
}

/** Threads and accounts reached through the Worker's Durable Object bindings. */
export class DurableThreads implements ChildThreads, AccountNotices {
  /** @param env the Worker's bindings: `THREAD` (required for child threads) and `ACCOUNT` (optional: without it nothing is counted). */
  constructor(private readonly env: { readonly THREAD?: DurableObjectNamespace; readonly ACCOUNT?: DurableObjectNamespace }) {}

  /** @throws WeftError `capability_missing` without a `THREAD` binding. */
  private get threads(): DurableObjectNamespace {
    const ns = this.env.THREAD;
    if (!ns) throw new WeftError("capability_missing", "agents called as tools need the THREAD Durable Object binding");
    return ns;
  }

  private thread(threadId: string): PeerStub {
    let id: DurableObjectId;
    try {
      id = this.threads.idFromString(threadId);
    } catch {
      throw new WeftError("thread_not_found", `no thread ${threadId}`);
    }
    return this.threads.get(id) as unknown as PeerStub;
  }

  childId(effectKey: string): string {
    return this.threads.idFromName(`child:${effectKey}`).toString();
  }

  async create(owner: ThreadOwner, threadId: string, input: ChildThreadInput): Promise<"created" | "exists"> {
    const created = await this.thread(threadId).create(owner, { ...input }, threadId);
    if (created.ok) return "created";
    if (created.error.code === "thread_exists") return "exists";
    return unwrap(created) as never;
  }

  async answer(owner: ThreadOwner, threadId: string, wait: boolean): Promise<ChildAnswer> {
    return unwrap(await this.thread(threadId).childAnswer(owner, wait));
  }

  async stop(owner: ThreadOwner, threadId: string): Promise<void> {
    unwrap(await this.thread(threadId).stop(owner, true));
  }

  async tellParent(owner: ThreadOwner, parentThreadId: string): Promise<void> {
    unwrap(await this.thread(parentThreadId).childChanged(owner));
  }

  async claim(userId: string, entry: AccountEntry, max: number, listed = true): Promise<void> {
    if (this.env.ACCOUNT) unwrap(await accountOf(this.env.ACCOUNT, userId).addThread(entry, max, listed));
  }

  async unlist(userId: string, threadId: string, createdAt?: number): Promise<void> {
    if (this.env.ACCOUNT) unwrap(await accountOf(this.env.ACCOUNT, userId).removeThread(threadId, createdAt));
  }

  async countSchedules(userId: string, threadId: string, active: number, max: number, createdAt?: number): Promise<void> {
    if (this.env.ACCOUNT) unwrap(await accountOf(this.env.ACCOUNT, userId).countSchedules(threadId, active, max, createdAt));
  }

  async listed(userId: string, limit: number): Promise<string[]> {
    if (!this.env.ACCOUNT) return [];
    return unwrap(await accountOf(this.env.ACCOUNT, userId).listThreads({ limit })).threads.map((t) => t.threadId);
  }

  async envChanged(threadId: string): Promise<boolean> {
    return (await this.thread(threadId).accountEnvChanged()).live;
  }
}
