/**
 * The owner's account lists an id before its create runs; a create that makes no thread takes that
 * listing back. Whether a thread is there is the thread object's to say (the last create out finds
 * one or not), never a refusal's code: two creates on one continuationToken, a refusal kept under
 * an Idempotency-Key and replayed, or a create refused after its thread was attached each left the
 * listing and the thread apart when the Worker decided by the code (found by a hostile review).
 */
import { expect, it } from "vitest";
import { inThread, isListed, json, keyed } from "../helpers.js";
import { gateVariable, release, tokenId, waiting } from "./create-gates.js";


it("a create refused while another create on the same continuationToken makes the thread leaves that thread listed", async () => {
  const token = `race-b:${crypto.randomUUID()}`;
  const id = tokenId(token);
  const gate = `b-${token}`;
  await gateVariable(id, gate);
  // A: its agent needs a value the user lacks; it passed the "thread exists" check and waits for the account.
  const a = json("POST", "/threads", { agent: "needs_key", continuationToken: token });
  await waiting(id, gate, 1);
  // B: the same token, an agent that needs nothing: made and listed.
  const b = await json("POST", "/threads", { agent: "guarantees", continuationToken: token });
  expect([b.status, b.body.threadId]).toEqual([201, id]);
  expect(await isListed(id)).toBe(true);
  await release(id, gate, 0);
  const refused = await a;
  expect([refused.status, refused.body.error?.code]).toEqual([400, "missing_variables"]);
  // The thread B made lives on...
  expect((await json("GET", `/threads/${id}`)).status).toBe(200);
  // ...and must still be listed (and counted against WEFT_MAX_THREADS_PER_USER).
  try {
    expect(await isListed(id)).toBe(true);
  } finally {
    await json("DELETE", `/threads/${id}`);
  }
}, 60_000);

it("two refused creates on one token leave nothing behind: the key's refusal goes with them, and a fixed retry under the key makes a listed thread", async () => {
  const token = `race-a:${crypto.randomUUID()}`;
  const key = `race-a-${crypto.randomUUID()}`;
  const id = tokenId(token);
  const gate = `a-${token}`;
  await gateVariable(id, gate);
  // A keyed create and an unkeyed one on the same token, both refused (missing_variables).
  const a = keyed("POST", "/threads", key, { agent: "needs_key", continuationToken: token });
  await waiting(id, gate, 1);
  const b = json("POST", "/threads", { agent: "needs_key", continuationToken: token });
  await waiting(id, gate, 2);
  // A ends first, while B runs: nothing is cleaned up yet. B, the last out, finds no thread and cleans up.
  await release(id, gate, 0);
  expect((await a).status).toBe(400);
  await release(id, gate, 1);
  expect((await b).status).toBe(400);
  expect(await isListed(id)).toBe(false);
  // The client fixes its request and retries under the same key: the failure went with the rows.
  const retry = await keyed("POST", "/threads", key, { agent: "guarantees", continuationToken: token });
  expect([retry.status, retry.body.threadId]).toEqual([201, id]);
  expect(await isListed(id)).toBe(true);
  expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
  expect(await isListed(id)).toBe(false);
}, 60_000);

it("a create refused after its thread was attached (the owner's env reload failed) leaves that thread listed", async () => {
  const token = `race-c:${crypto.randomUUID()}`;
  const id = tokenId(token);
  await inThread(id, (t) => {
    let once = true;
    const refresh = t.refreshSecrets.bind(t);
    t.refreshSecrets = () => {
      if (once) {
        once = false;
        return Promise.reject(new Error("account unreachable"));
      }
      return refresh();
    };
  });
  const refused = await json("POST", "/threads", { agent: "guarantees", continuationToken: token });
  expect(refused.status).toBeGreaterThanOrEqual(500);
  const info = await json("GET", `/threads/${id}`);
  const listed = await isListed(id);
  try {
    // Either no thread, or a listed one.
    expect({ info: info.status, listed }).not.toEqual({ info: 200, listed: false });
  } finally {
    await json("DELETE", `/threads/${id}`);
  }
}, 60_000);

it("the replay of a keyed create's kept refusal leaves listed the thread a create on the same token made meanwhile", async () => {
  const token = `race-d:${crypto.randomUUID()}`;
  const key = `race-d-${crypto.randomUUID()}`;
  const id = tokenId(token);
  const gate = `d-${token}`;
  await gateVariable(id, gate);
  const a = keyed("POST", "/threads", key, { agent: "needs_key", continuationToken: token });
  await waiting(id, gate, 1);
  expect((await json("POST", "/threads", { agent: "guarantees", continuationToken: token })).status).toBe(201);
  await release(id, gate, 0);
  // Kept as the key's answer: the thread exists, so the failed-create cleanup did not run.
  expect((await a).status).toBe(400);
  // Listed again by a create that finds the thread (409 thread_exists keeps the listing).
  expect((await json("POST", "/threads", { agent: "guarantees", continuationToken: token })).body.error?.code).toBe("thread_exists");
  expect(await isListed(id)).toBe(true);
  // The client retries its first request under its key, as keys invite: the kept 400 is replayed...
  expect((await keyed("POST", "/threads", key, { agent: "needs_key", continuationToken: token })).status).toBe(400);
  try {
    // ...and the Worker takes back the listing of a thread that lives.
    expect({ info: (await json("GET", `/threads/${id}`)).status, listed: await isListed(id) }).toEqual({ info: 200, listed: true });
  } finally {
    await json("DELETE", `/threads/${id}`);
  }
}, 60_000);

it("two creates sent at once on one token, one refused, leave the thread the other made listed (10 rounds)", async () => {
  const rounds: Array<{ made: boolean; listed: boolean }> = [];
  for (let i = 0; i < 10; i++) {
    const token = `at-once:${crypto.randomUUID()}`;
    const [, b] = await Promise.all([json("POST", "/threads", { agent: "needs_key", continuationToken: token }), json("POST", "/threads", { agent: "guarantees", continuationToken: token })]);
    if (b.status !== 201) {
      rounds.push({ made: false, listed: false });
      continue;
    }
    rounds.push({ made: true, listed: await isListed(b.body.threadId) });
    await json("DELETE", `/threads/${b.body.threadId}`);
  }
  const made = rounds.filter((r) => r.made);
  expect(made.length).toBeGreaterThan(0);
  expect(made.filter((r) => !r.listed)).toEqual([]);
}, 120_000);
