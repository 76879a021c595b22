/**
 * The threads port's contract, as behaviour checks any implementation must pass: one child per
 * effect key, a create that never makes a second thread, a child's answer to its owner only,
 * notices to a parent, and the owner's account counting threads against a limit.
 * @module
 */
import { describe, expect, it } from "vitest";
import { isWeftError } from "../../src/errors.js";
import type { AccountNotices, ChildThreadInput, ChildThreads, ThreadOwner } from "../../src/ports/threads.js";

/** What the suite gets: the port, an agent that answers a known text, and a thread id never made. */
export interface ThreadsFixture {
  threads: ChildThreads & AccountNotices;
  /** An agent whose child, opened with {@link ThreadsFixture.question}, answers {@link ThreadsFixture.expected}. */
  agent: string;
  /** The opening message for `agent`. */
  question: string;
  /** What `agent` answers. */
  expected: string;
  /** A well-formed thread id no thread has. */
  neverMade(): string;
}

/** An owner of its own for each test, so accounts and threads never meet across tests. */
function owner(): ThreadOwner {
  return { userId: `owner-${crypto.randomUUID()}`, name: "thread parent", roles: [], admin: false };
}

/** The WeftError code `run` rejects with (fails the test when it resolves). */
async function codeOf(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (e) {
    if (isWeftError(e)) return e.code;
    throw e;
  }
  throw new Error("expected a WeftError");
}

/** Registers the threads contract's tests for implementation `impl`, given fixtures from `make`. */
export function threadsConformance(impl: string, make: () => ThreadsFixture): void {
  const input = (f: ThreadsFixture, agent = f.agent): ChildThreadInput => ({ agent, arguments: { input: f.question }, dryRun: false, opening: f.question, parent: { threadId: f.neverMade(), callId: "c1" } });

  describe(`threads port: ${impl}`, () => {
    it("the child of an effect key is always the same thread, and another key's is another", () => {
      const { threads } = make();
      const key = `k:${crypto.randomUUID()}`;
      expect(threads.childId(key)).toBe(threads.childId(key));
      expect(threads.childId(key)).not.toBe(threads.childId(`${key}x`));
      expect(threads.childId(key)).toMatch(/^[0-9a-f]{64}$/);
    });

    it("a child runs its agent on its opening message and answers its owner; a second create makes no second thread", async () => {
      const f = make();
      const me = owner();
      const id = f.threads.childId(`k:${crypto.randomUUID()}`);
      expect(await f.threads.create(me, id, input(f))).toBe("created");
      const done = await f.threads.answer(me, id, true);
      expect(done).toMatchObject({ status: "completed", answer: f.expected });
      expect(await f.threads.create(me, id, { ...input(f), opening: "a different question" })).toBe("exists");
      expect(await f.threads.answer(me, id, true)).toMatchObject({ status: "completed", answer: f.expected });
    });

    it("a child is no one else's: another owner finds no thread, to read or to create over", async () => {
      const f = make();
      const me = owner();
      const id = f.threads.childId(`k:${crypto.randomUUID()}`);
      await f.threads.create(me, id, input(f));
      expect(await codeOf(f.threads.answer(owner(), id, false))).toBe("thread_not_found");
      expect(await codeOf(f.threads.create(owner(), id, input(f)))).toBe("thread_not_found");
      expect(await codeOf(f.threads.answer(me, f.neverMade(), false))).toBe("thread_not_found");
    });

    it("an unknown agent is refused with agent_not_found and leaves no thread, nor its owner's claim of the id", async () => {
      const f = make();
      const me = owner();
      const id = f.threads.childId(`k:${crypto.randomUUID()}`);
      await f.threads.claim(me.userId, { threadId: id, agentId: "no-such-agent", createdAt: 1 }, 10);
      expect(await codeOf(f.threads.create(me, id, input(f, "no-such-agent")))).toBe("agent_not_found");
      expect(await codeOf(f.threads.answer(me, id, false))).toBe("thread_not_found");
      expect(await f.threads.listed(me.userId, 10)).toEqual([]);
    });

    it("the owner stops a child's turn: its answer then tells how it ended; another owner finds no thread to stop", async () => {
      const f = make();
      const me = owner();
      const id = f.threads.childId(`k:${crypto.randomUUID()}`);
      await f.threads.create(me, id, input(f));
      expect(await codeOf(f.threads.stop(owner(), id))).toBe("thread_not_found");
      await expect(f.threads.stop(me, id)).resolves.toBeUndefined();
      // Stopped, or done before the stop reached it: either way no longer at work.
      expect(["stopped", "completed"]).toContain((await f.threads.answer(me, id, true)).status);
      await expect(f.threads.stop(me, id)).resolves.toBeUndefined();
      expect(await codeOf(f.threads.stop(me, f.neverMade()))).toBe("thread_not_found");
    });

    it("a parent is told its child moved on; a parent that is gone is thread_not_found", async () => {
      const f = make();
      const me = owner();
      const parent = f.threads.childId(`k:${crypto.randomUUID()}`);
      await f.threads.create(me, parent, input(f));
      await expect(f.threads.tellParent(me, parent)).resolves.toBeUndefined();
      expect(await codeOf(f.threads.tellParent(me, f.neverMade()))).toBe("thread_not_found");
    });

    it("account: threads count against the limit, a repeat takes no slot, unlisting frees one, listings are newest first", async () => {
      const { threads } = make();
      const user = owner().userId;
      await threads.claim(user, { threadId: "a".repeat(64), agentId: "x", createdAt: 1 }, 2);
      await threads.claim(user, { threadId: "b".repeat(64), agentId: "x", createdAt: 2 }, 2);
      await threads.claim(user, { threadId: "a".repeat(64), agentId: "x", createdAt: 1 }, 2);
      expect(await codeOf(threads.claim(user, { threadId: "c".repeat(64), agentId: "x", createdAt: 3 }, 2))).toBe("too_many_threads");
      expect(await threads.listed(user, 10)).toEqual(["b".repeat(64), "a".repeat(64)]);
      await threads.unlist(user, "a".repeat(64));
      await threads.claim(user, { threadId: "c".repeat(64), agentId: "x", createdAt: 3 }, 2);
      expect(await threads.listed(user, 1)).toEqual(["c".repeat(64)]);
    });

    it("account: an unlisted thread holds a slot without a listing, and is listed in that slot when asked", async () => {
      const { threads } = make();
      const user = owner().userId;
      await threads.claim(user, { threadId: "d".repeat(64), agentId: "x", createdAt: 1 }, 1, false);
      expect(await threads.listed(user, 10)).toEqual([]);
      expect(await codeOf(threads.claim(user, { threadId: "e".repeat(64), agentId: "x", createdAt: 2 }, 1))).toBe("too_many_threads");
      await threads.claim(user, { threadId: "d".repeat(64), agentId: "x", createdAt: 1 }, 1);
      expect(await threads.listed(user, 10)).toEqual(["d".repeat(64)]);
    });

    it("account: schedules count over the user's threads; a rise past the limit is refused, a fall or a repeat never is, unlisting drops a thread's count", async () => {
      const { threads } = make();
      const user = owner().userId;
      const [a, b] = ["a".repeat(64), "b".repeat(64)];
      await threads.countSchedules(user, a, 2, 3);
      await threads.countSchedules(user, b, 1, 3);
      expect(await codeOf(threads.countSchedules(user, b, 2, 3))).toBe("too_many_schedules");
      // At the limit: the same count again and a fall pass, with any max.
      await threads.countSchedules(user, b, 1, 3);
      await threads.countSchedules(user, a, 1, 0);
      await threads.countSchedules(user, b, 2, 3);
      expect(await codeOf(threads.countSchedules(user, a, 2, 3))).toBe("too_many_schedules");
      // Another user's count is its own.
      await threads.countSchedules(owner().userId, a, 3, 3);
      await threads.unlist(user, b);
      await threads.countSchedules(user, a, 3, 3);
      await threads.countSchedules(user, a, 0, 3);
      await threads.countSchedules(user, b, 3, 3);
    });

    it("account: a removed thread's listing or schedule count that arrives after its removal changes nothing; the id's next thread counts", async () => {
      const { threads } = make();
      const user = owner().userId;
      const [a, b] = ["a".repeat(64), "b".repeat(64)];
      await threads.claim(user, { threadId: a, agentId: "x", createdAt: 100 }, 2);
      await threads.countSchedules(user, a, 2, 3, 100);
      await threads.unlist(user, a, 100);
      // Sent by thread a (made at 100) before its removal, delivered after it.
      await threads.claim(user, { threadId: a, agentId: "x", createdAt: 100 }, 2);
      await threads.countSchedules(user, a, 3, 3, 100);
      expect(await threads.listed(user, 10)).toEqual([]);
      // Neither holds a slot: two threads and three schedules fit.
      await threads.claim(user, { threadId: b, agentId: "x", createdAt: 101 }, 2);
      await threads.countSchedules(user, b, 3, 3, 101);
      await threads.countSchedules(user, b, 0, 3, 101);
      // The thread made again on the id (another createdAt) is listed and counted, and the old one's late fall leaves its count.
      await threads.claim(user, { threadId: a, agentId: "x", createdAt: 200 }, 2);
      expect(await threads.listed(user, 10)).toEqual([a, b]);
      await threads.countSchedules(user, a, 2, 3, 200);
      await threads.countSchedules(user, a, 0, 3, 100);
      expect(await codeOf(threads.countSchedules(user, b, 2, 3, 101))).toBe("too_many_schedules");
      // Unlisting without a createdAt remembers nothing: the same entry is listed again.
      await threads.unlist(user, b);
      await threads.claim(user, { threadId: b, agentId: "x", createdAt: 101 }, 2);
      expect(await threads.listed(user, 10)).toEqual([a, b]);
    });

    it("an env notice reaches a live thread and says when the thread is gone", async () => {
      const f = make();
      const me = owner();
      const id = f.threads.childId(`k:${crypto.randomUUID()}`);
      await f.threads.create(me, id, input(f));
      expect(await f.threads.envChanged(id)).toBe(true);
      expect(await f.threads.envChanged(f.neverMade())).toBe(false);
    });
  });
}
