/**
 * What the tests of `DELETE /threads/:id` racing other work share: the thread's owner, a direct
 * call by session, and waits for calls to start and for the removal to begin.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Caller } from "../src/rpc.js";
import { inThread, json, keyed, stubOf, until } from "./helpers.js";

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

/** The scratch thread a keyed direct call of user `userId` runs in (src/http/stubs.ts `keyedThread`). */
export function scratchIdOf(userId: string, key: string): string {
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  return ns.idFromName(`idem:${JSON.stringify(["call", userId, key])}`).toString();
}

/** Listings held by {@link holdListing}, by tag: calling one sends it to the account. */
export const heldListings = ((globalThis as unknown as { __heldListing?: Record<string, () => void> }).__heldListing ??= {});

/** Holds the thread's next account listing that `which` picks until `heldListings[tag]` is called. */
export function holdListing(id: string, tag: string, which: (meta: { ephemeral?: boolean }) => boolean): Promise<void> {
  return inThread(id, (t) => {
    const listing = t.listing;
    const list = listing.listInAccount.bind(listing);
    listing.listInAccount = (...args: Parameters<typeof list>) => {
      if (!which(args[0] as { ephemeral?: boolean })) return list(...args);
      listing.listInAccount = list;
      return new Promise((resolve, reject) => void (heldListings[tag] = () => void list(...args).then(resolve, reject)));
    };
  });
}

/**
 * Holds the next keep as a session of a scratch thread of this isolate (its listing, taken on the
 * listing's prototype through a thread of its own): `id` names that thread once held, `release` sends it.
 */
async function holdNextKeep(): Promise<{ id?: string; release?: () => void }> {
  const helper = (await json("POST", "/threads", { agent: "guarantees" })).body.threadId as string;
  const held: { id?: string; release?: () => void } = {};
  (globalThis as unknown as { __keepHeld?: typeof held }).__keepHeld = held;
  await inThread(helper, (t) => {
    const proto = Object.getPrototypeOf(t.listing);
    const list = proto.listInAccount;
    const h = (globalThis as unknown as { __keepHeld: typeof held }).__keepHeld;
    proto.listInAccount = function (this: { parts: { threadId: string } }, ...args: unknown[]) {
      if ((args[0] as { ephemeral?: boolean }).ephemeral !== false || this.parts.threadId === helper) return list.apply(this, args);
      proto.listInAccount = list;
      h.id = this.parts.threadId;
      return new Promise((resolve, reject) => void (h.release = () => void list.apply(this, args).then(resolve, reject)));
    };
  });
  return held;
}

/**
 * A direct call (`dated`: it waits for approval; keyed with `key`, or not) whose scratch thread's
 * keep as a session is held, and a DELETE of that thread begun meanwhile: `release` sends the keep's
 * listing (late or within the grace, as the test orders it), `first` is the call's answer,
 * `deleting` the DELETE's.
 */
export async function keepHeldAcrossDelete(key?: string) {
  const input = { input: { when: "2026-01-01T00:00:00Z" } };
  let id: string;
  let first: Promise<{ status: number; body: any }>;
  let release: () => void;
  if (key === undefined) {
    const held = await holdNextKeep();
    first = json("POST", "/v1/tools/dated", input);
    await until(async () => held.release !== undefined, "the keep to wait");
    id = held.id!;
    release = () => held.release!();
  } else {
    id = scratchIdOf("tester", key);
    await holdListing(id, key, (meta) => meta.ephemeral === false);
    first = keyed("POST", "/v1/tools/dated", key, input);
    await until(() => inThread(id, () => heldListings[key] !== undefined), "the keep to wait");
    release = () => heldListings[key]!();
  }
  const deleting = json("DELETE", `/threads/${id}`);
  await untilDeleting(id);
  return { id, first, deleting, release: () => inThread(id, release) };
}
