/**
 * A create that makes no thread takes its id's listing back; a create that makes one lists it
 * again, whatever happened in between, a restart of the object included (found by a hostile review).
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { isListed, json, rawStub, stubOf } from "../helpers.js";
import { gateVariable, release, tokenId, waiting } from "./create-gates.js";

const account = (userId: string) => {
  const a = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return a.get(a.idFromName(userId)) as unknown as { addThread(e: unknown, max: number, listed?: boolean): Promise<{ ok: boolean }> };
};

async function claimedBeforeTakeBack(restart: boolean): Promise<void> {
  const token = `tb-restart:${crypto.randomUUID()}`;
  const id = tokenId(token);
  const gate = `r-${token}`;
  await gateVariable(id, gate);
  // A: refused (missing_variables), held inside the object.
  const a = json("POST", "/threads", { agent: "needs_key", continuationToken: token });
  await waiting(id, gate, 1);
  // B, on the same token: the Worker's first step (the account entry; A's claim already holds it).
  const caller = { userId: "tester", name: "tester", roles: [], admin: false };
  expect((await account("tester").addThread({ threadId: id, agentId: "guarantees", createdAt: Date.now() }, 1000, true)).ok).toBe(true);
  // A ends: the last create out finds no thread and takes the listing back (B's too: the same entry).
  await release(id, gate, 0);
  expect((await a).status).toBe(400);
  expect(await isListed(id)).toBe(false);
  // The object restarts (eviction, deploy) before B's create reaches it: nothing in memory says the id was unlisted.
  if (restart) await (rawStub(id) as unknown as { testCrash(): Promise<void> }).testCrash().catch(() => undefined);
  // B's second step, as the Worker makes it.
  const made = await stubOf(id).create(caller, { agent: "guarantees" }, id);
  expect(made.ok).toBe(true);
  try {
    expect({ info: (await json("GET", `/threads/${id}`)).status, listed: await isListed(id) }).toEqual({ info: 200, listed: true });
  } finally {
    await json("DELETE", `/threads/${id}`);
  }
}

it("a thread made after a failed create took the listing back is listed", () => claimedBeforeTakeBack(false), 60_000);

it("a thread made after a failed create took the listing back is listed, after a restart of the object too", () => claimedBeforeTakeBack(true), 60_000);
