/**
 * What the tests of `DELETE /threads/:id` racing other work share: the thread's owner, a direct
 * call by session, and waits for calls to start and for the removal to begin.
 */
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
