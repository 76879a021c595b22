/**
 * Calls between Durable Objects: a thread creates, runs and reads its child threads (agents
 * called as tools), tells its parent when it moved on, and counts itself in its owner's account.
 * @module
 */

/** Who acts on another thread: a parent acts on its child as the parent's owner. */
export interface ThreadOwner {
  /** The owner's user id ("" for a thread without a user). */
  userId: string;
  /** A display name for logs, e.g. `thread <id>`. */
  name: string;
  /** Roles the caller holds (none for a thread acting for its owner). */
  roles: string[];
  /** Whether the caller bypasses ownership checks (never for a thread). */
  admin: boolean;
}

/** What a child thread is created with. */
export interface ChildThreadInput {
  /** The agent the child runs. */
  agent: string;
  /** The child's creation arguments (the call's arguments). */
  arguments: Record<string, unknown>;
  /** Inherited from the parent: only reads execute. */
  dryRun: boolean;
  /** Inherited from the parent: the frozen "now", ISO-8601. */
  asOf?: string;
  /** The child's first message, queued in the same transaction that creates it, so its turn runs even after a crash. */
  opening: string;
  /** The calling thread and call. */
  parent: { threadId: string; callId: string };
}

/**
 * How a child thread's work for its parent stands: its first turn, the one its opening message
 * started. A later turn (only the child's owner can post one) is not the parent's call.
 */
export interface ChildAnswer {
  /** `running`: the first turn runs, or its opening waits for it; `idle`: no turn and nothing queued; else the first turn's status. */
  status: "completed" | "stopped" | "failed" | "waiting" | "running" | "idle";
  /** The first turn's final text (side a's last non-empty answer in it; "" when none), so far while it runs. */
  answer: string;
  /** Why the first turn failed or stopped, when it did. */
  error?: string;
}

/** A thread's child threads and its parent. */
export interface ChildThreads {
  /** The id of the child thread of the call with `effectKey`: the same key always names the same child (no second child after a restart). */
  childId(effectKey: string): string;
  /**
   * Creates child `threadId` as `owner`, its opening message queued with it.
   * @returns `created`, or `exists` when `owner`'s thread of that id exists already (nothing changed: the first one stands).
   * @throws WeftError with the refusal's code (`agent_not_found`, `invalid_request`, ...; `thread_not_found` for an id another user's thread holds); nothing is created then, and a refusal that leaves no thread at the id takes back `owner`'s `claim` of it.
   */
  create(owner: ThreadOwner, threadId: string, input: ChildThreadInput): Promise<"created" | "exists">;
  /**
   * How child `threadId`'s first turn stands; with `wait`, once that turn has ended (or waits for a person).
   * @throws WeftError `thread_not_found` for a thread that does not exist or that `owner` does not own (the two look the same).
   */
  answer(owner: ThreadOwner, threadId: string, wait: boolean): Promise<ChildAnswer>;
  /**
   * Stops child `threadId`'s first turn, running or waiting for a person (its open calls end as
   * the effect table says for a stop); nothing when it has ended or not begun, and a later turn
   * is left alone. Its answer then tells how it ended.
   * @throws WeftError `thread_not_found` as {@link answer} does.
   */
  stop(owner: ThreadOwner, threadId: string): Promise<void>;
  /**
   * Tells parent `parentThreadId` that its child's turn ended, so a call waiting on it goes on.
   * @throws WeftError `thread_not_found` when the parent is gone or not `owner`'s, or what reaching it threw.
   */
  tellParent(owner: ThreadOwner, parentThreadId: string): Promise<void>;
}

/** One thread in a user's index. `createdAt` is epoch milliseconds. */
export interface AccountEntry {
  /** The thread's id. */
  threadId: string;
  /** The agent it runs. */
  agentId: string;
  /** When it was created (epoch ms): the index lists newest first. */
  createdAt: number;
}

/** The notices a thread and its owner's account exchange. */
export interface AccountNotices {
  /**
   * Counts a thread against `userId`'s limit of `max` threads, listed in `GET /threads` unless
   * `listed` is false. Counting a counted thread again changes nothing and is never refused
   * (a counted unlisted one is listed when asked, in its own slot).
   * @throws WeftError `too_many_threads` at the limit; nothing is written then.
   */
  claim(userId: string, entry: AccountEntry, max: number, listed?: boolean): Promise<void>;
  /**
   * Frees the thread's slot (listed or not) and its schedules' count; a thread not counted changes
   * nothing. With the removed thread's `createdAt` (its lifetime on the id), a `claim` or
   * `countSchedules` naming that thread that arrives later, for a day (`REMOVED_KEPT_MS`), changes nothing.
   */
  unlist(userId: string, threadId: string, createdAt?: number): Promise<void>;
  /**
   * Sets how many active schedules thread `threadId` holds in `userId`'s count (0 drops it). A
   * rise is refused when the user's threads would then hold more than `max` together; a fall, or
   * the same count again, never is. The thread sends its whole count, not a change, so a lost
   * notice is made good by the next one. `createdAt` names the counting thread (see `unlist`).
   * @throws WeftError `too_many_schedules` (with `limit`) at the limit; nothing is written then.
   */
  countSchedules(userId: string, threadId: string, active: number, max: number, createdAt?: number): Promise<void>;
  /** The ids `userId` has listed, newest first (at most `limit`). */
  listed(userId: string, limit: number): Promise<string[]>;
  /**
   * Tells thread `threadId` that its owner's env values changed, so it reads them again before
   * its next use of them.
   * @returns false when that thread no longer exists (the account stops telling it).
   */
  envChanged(threadId: string): Promise<boolean>;
}
