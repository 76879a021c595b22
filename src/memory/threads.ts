/**
 * The threads port in memory, for plain Node: child threads, parents and accounts as entries of
 * one map, each child "running" its agent as a function of its opening message.
 * @module
 */
import { WeftError } from "../errors.js";
import { REMOVED_KEPT_MS, tooManySchedules } from "../limits.js";
import type { AccountEntry, AccountNotices, ChildAnswer, ChildThreadInput, ChildThreads, ThreadOwner } from "../ports/threads.js";

/** A user's account in memory: its threads, their schedules' counts, and removed threads (`id@createdAt` -> when). */
interface MemoryAccount {
  listed: AccountEntry[];
  unlisted: AccountEntry[];
  schedules: Map<string, number>;
  removed: Map<string, number>;
}

/** What a memory agent answers to a child's opening message: its final text, or a turn that waits or fails. */
export type MemoryAgent = (opening: string, args: Record<string, unknown>) => string | ChildAnswer;

/** A thread in the memory world. */
interface MemoryThread {
  owner: string;
  input: ChildThreadInput;
  /** The child's answer once its turn ran; null before. */
  done: ChildAnswer | null;
  /** Notices of children that moved on (for a parent). */
  childNotices: number;
  /** Notices of env changes from the owner's account. */
  envNotices: number;
}

/** SHA-256-free stand-in for a Durable Object id: 64 hex digits derived from a name. */
function idOf(name: string): string {
  let h = 0x811c9dc5;
  let out = "";
  for (let round = 0; out.length < 64; round++) {
    for (const ch of `${round}:${name}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out.slice(0, 64);
}

/** Threads and accounts in memory. */
export class MemoryThreads implements ChildThreads, AccountNotices {
  private readonly threads = new Map<string, MemoryThread>();
  private readonly accounts = new Map<string, MemoryAccount>();

  /** @param agents the agents a child may run, by name. */
  constructor(private readonly agents: Readonly<Record<string, MemoryAgent>>) {}

  childId(effectKey: string): string {
    return idOf(`child:${effectKey}`);
  }

  /** @throws WeftError `thread_not_found` when there is none or `owner` does not own it. */
  private owned(owner: ThreadOwner, threadId: string): MemoryThread {
    const thread = this.threads.get(threadId);
    if (!thread || thread.owner !== owner.userId) throw new WeftError("thread_not_found", `no thread ${threadId}`);
    return thread;
  }

  /** How many notices thread `threadId` got: from its children, and of env changes (for tests). */
  notices(threadId: string): { children: number; env: number } {
    const t = this.threads.get(threadId);
    return { children: t?.childNotices ?? 0, env: t?.envNotices ?? 0 };
  }

  async create(owner: ThreadOwner, threadId: string, input: ChildThreadInput): Promise<"created" | "exists"> {
    const existing = this.threads.get(threadId);
    if (existing) {
      if (existing.owner !== owner.userId) throw new WeftError("thread_not_found", `no thread ${threadId}`);
      return "exists";
    }
    if (!(input.agent in this.agents)) {
      await this.unlist(owner.userId, threadId);
      throw new WeftError("agent_not_found", `no agent "${input.agent}"`);
    }
    this.threads.set(threadId, { owner: owner.userId, input: structuredClone(input), done: null, childNotices: 0, envNotices: 0 });
    return "created";
  }

  async answer(owner: ThreadOwner, threadId: string, wait: boolean): Promise<ChildAnswer> {
    const thread = this.owned(owner, threadId);
    if (wait && thread.done === null) {
      const ran = this.agents[thread.input.agent]!(thread.input.opening, thread.input.arguments);
      thread.done = typeof ran === "string" ? { status: "completed", answer: ran } : ran;
    }
    return thread.done ? { ...thread.done } : { status: "running", answer: "" };
  }

  async stop(owner: ThreadOwner, threadId: string): Promise<void> {
    const thread = this.owned(owner, threadId);
    thread.done ??= { status: "stopped", answer: "" };
  }

  async tellParent(owner: ThreadOwner, parentThreadId: string): Promise<void> {
    this.owned(owner, parentThreadId).childNotices++;
  }

  private account(userId: string): MemoryAccount {
    let account = this.accounts.get(userId);
    if (!account) this.accounts.set(userId, (account = { listed: [], unlisted: [], schedules: new Map(), removed: new Map() }));
    return account;
  }

  async claim(userId: string, entry: AccountEntry, max: number, listed = true): Promise<void> {
    const account = this.account(userId);
    if (this.removed(account, entry.threadId, entry.createdAt)) return;
    if (account.listed.some((e) => e.threadId === entry.threadId)) return;
    const unlisted = account.unlisted.findIndex((e) => e.threadId === entry.threadId);
    if (unlisted >= 0) {
      // Counted already: listed when asked, in its own slot.
      if (listed) {
        account.unlisted.splice(unlisted, 1);
        account.listed.push({ ...entry });
      }
      return;
    }
    const count = account.listed.length + account.unlisted.length;
    if (count >= max) throw new WeftError("too_many_threads", `this user has ${count} threads; the limit is ${max} threads per user (WEFT_MAX_THREADS_PER_USER)`, { limit: max });
    (listed ? account.listed : account.unlisted).push({ ...entry });
  }

  /** Whether the thread of `threadId` made at `createdAt` was removed within `REMOVED_KEPT_MS`. */
  private removed(account: MemoryAccount, threadId: string, createdAt: number | undefined): boolean {
    const at = createdAt === undefined ? undefined : account.removed.get(`${threadId}@${createdAt}`);
    return at !== undefined && Date.now() - at <= REMOVED_KEPT_MS;
  }

  async unlist(userId: string, threadId: string, createdAt?: number): Promise<void> {
    const account = this.account(userId);
    if (createdAt !== undefined) account.removed.set(`${threadId}@${createdAt}`, Date.now());
    account.listed = account.listed.filter((e) => e.threadId !== threadId);
    account.unlisted = account.unlisted.filter((e) => e.threadId !== threadId);
    account.schedules.delete(threadId);
  }

  async countSchedules(userId: string, threadId: string, active: number, max: number, createdAt?: number): Promise<void> {
    const account = this.account(userId);
    if (this.removed(account, threadId, createdAt)) return;
    const { schedules } = account;
    const before = schedules.get(threadId) ?? 0;
    const others = [...schedules.values()].reduce((n, c) => n + c, 0) - before;
    if (active > before && others + active > max) throw tooManySchedules(others + before, max);
    if (active > 0) schedules.set(threadId, active);
    else schedules.delete(threadId);
  }

  async listed(userId: string, limit: number): Promise<string[]> {
    return [...this.account(userId).listed]
      .sort((a, b) => b.createdAt - a.createdAt || (a.threadId < b.threadId ? 1 : -1))
      .slice(0, limit)
      .map((e) => e.threadId);
  }

  async envChanged(threadId: string): Promise<boolean> {
    const thread = this.threads.get(threadId);
    if (!thread) return false;
    thread.envNotices++;
    return true;
  }
}
