/**
 * A person's inbox, `GET /account/waiting`: the calls that wait for them (an approval to give, a
 * parked outcome to settle, a client tool's answer) across their own threads. Read at request time
 * from each thread's ledger, a page of the account's thread index at a time: no second index to
 * keep in step with the threads, so nothing to lose in a crash between the two.
 * @module
 */
import type { AccountApi } from "../account/api.js";
import { threadCursor } from "../account/api.js";
import type { AccountEntry } from "../ports/threads.js";
import type { WaitingCall, WaitingPage, WaitingProblem } from "../account/types.js";
import { pageWithin } from "../limits.js";
import { PERSON_WAIT_STATUSES, type CallRecord, type PersonWaitStatus } from "../records.js";
import { type Caller, unwrap } from "../rpc.js";
import type { WeftEnv } from "../thread/durable.js";
import { errorAnswer } from "./answers.js";
import { threadStub } from "./stubs.js";

/** Waiting calls read from one thread for one page (its oldest): past them the thread is named in `more`. */
export const WAITING_PER_THREAD = 100;
/** Threads asked at once: a page's Durable Object calls go out in groups of this many. */
const ASKED_AT_ONCE = 10;

/** What one thread of the page adds: its waiting calls, or why it answered nothing. */
interface ThreadAnswer {
  entry: AccountEntry;
  calls: WaitingCall[];
  problem?: WaitingProblem;
  more?: boolean;
}

/**
 * One page of the caller's waiting calls: `limit` threads of their account's index from `cursor`,
 * each asked for its calls in `PERSON_WAIT_STATUSES`. A thread that is gone or fails is named in
 * `problems` and the rest still answer. The page stops early, with `nextCursor` at the last thread
 * it holds, when the next thread's calls would take it past `PAGE_BYTES` of JSON.
 * @throws WeftError `invalid_request` naming `cursor` for a cursor no page handed out (from the account).
 */
export async function waitingPage(env: WeftEnv, account: AccountApi, caller: Caller, page: { limit: number; cursor?: string }): Promise<WaitingPage> {
  const { threads, nextCursor } = unwrap(await account.listThreads(page));
  const answers: ThreadAnswer[] = [];
  for (let i = 0; i < threads.length; i += ASKED_AT_ONCE) {
    answers.push(...(await Promise.all(threads.slice(i, i + ASKED_AT_ONCE).map((entry) => askThread(env, entry, caller)))));
  }
  const kept = pageWithin(answers, answers.length, (a) => a);
  return {
    calls: kept.items.flatMap((a) => a.calls),
    problems: kept.items.flatMap((a) => (a.problem ? [a.problem] : [])),
    more: kept.items.flatMap((a) => (a.more ? [a.entry.threadId] : [])),
    nextCursor: kept.more ? threadCursor(kept.items.at(-1)!.entry) : nextCursor,
  };
}

/** The waiting calls of one thread, one RPC for both statuses; never throws (a failure is its `problem`). */
async function askThread(env: WeftEnv, entry: AccountEntry, caller: Caller): Promise<ThreadAnswer> {
  try {
    const listed = await threadStub(env, entry.threadId).listCalls(caller, { status: PERSON_WAIT_STATUSES, limit: WAITING_PER_THREAD });
    if (!listed.ok) return { entry, calls: [], problem: { threadId: entry.threadId, code: listed.error.code, message: listed.error.message } };
    return { entry, calls: listed.value.calls.map((c) => waitingCall(entry, c)), ...(listed.value.hasMore ? { more: true } : {}) };
  } catch (e) {
    // As a route would answer it: a thread reset named so, anything unknown logged and not shown.
    const { code, message } = errorAnswer(e, env).body.error;
    return { entry, calls: [], problem: { threadId: entry.threadId, code, message } };
  }
}

function waitingCall(entry: AccountEntry, c: CallRecord): WaitingCall {
  return {
    threadId: entry.threadId,
    agentId: entry.agentId,
    callId: c.callId,
    toolName: c.toolName,
    status: c.status as PersonWaitStatus,
    ...(c.parkReason !== undefined ? { reason: c.parkReason } : {}),
    since: c.createdAt,
  };
}
