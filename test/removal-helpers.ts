/**
 * What the tests of `DELETE /threads/:id` racing other work share: the thread's owner, a direct
 * call by session, and waits for calls to start and for the removal to begin.
 */
import { expect } from "vitest";
import type { Caller } from "../src/rpc.js";
import { inThread, json, stubOf, until } from "./helpers.js";

/** The caller the test API key stands for, as the thread sees it. */
export const OWNER: Caller = { userId: "tester", name: "tester", roles: [], admin: false };

/** `POST /v1/tools/:tool` in the session `sessionId`. */
export const direct = (tool: string, input: Record<string, unknown>, sessionId: string) => json("POST", `/v1/tools/${tool}`, { input, sessionId });

/** Waits until `n` calls of the thread are running (their row says started). */
export function untilStarted(threadId: string, n: number): Promise<void> {
  return until(async () => {
    const listed = await stubOf(threadId).listCalls(OWNER, { status: "started" });
    return listed.ok && listed.value.calls.length >= n;
  }, `${n} started call(s)`);
}

/** Waits until the thread's removal has begun (and is still under way). */
export function untilDeleting(threadId: string): Promise<void> {
  return until(() => inThread(threadId, (t) => t.inFlight.removing !== null), "the delete to begin");
}

/** A thread of the `deletable` agent under a fresh `continuationToken` (named for `name`), with `again` making a thread on the same id. */
export async function keyedThread(name: string): Promise<{ id: string; again: () => Promise<void> }> {
  const token = `${name}:${crypto.randomUUID()}`;
  const first = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
  expect(first.status).toBe(201);
  const id = first.body.threadId as string;
  return {
    id,
    again: async () => {
      const made = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
      expect(made.status).toBe(201);
      expect(made.body.threadId).toBe(id);
    },
  };
}
