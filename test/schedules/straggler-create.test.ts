/**
 * A schedule request still waiting for the owner's account (its count check) when a DELETE cut it
 * must not store its schedule once the account answers: the schedules' store is the Durable
 * Object's, shared with a thread made again on the same id (found by a hostile review: the new
 * thread fired the deleted thread's schedule every hour; a request waiting behind it counted the
 * deleted thread in the owner's account for good, and held up the new thread's requests).
 */
import { expect, it } from "vitest";
import { inThread, json, keyed, until } from "../helpers.js";
import { HOURLY, countHeldAcrossDelete, countedIn, heldCounts } from "./helpers.js";

const g = globalThis as unknown as { __gates?: Record<string, { go: () => void; fail: () => void }> };

it("a schedule request a DELETE cut stores nothing in the thread made again on the id", async () => {
  const { id, made, straggler, release } = await countHeldAcrossDelete("schedule-straggler");
  expect((await made()).status).toBe(201);
  await release();
  expect((await straggler).status).toBe(404);
  expect((await json("GET", `/threads/${id}/schedules`)).body.schedules).toEqual([]);
  expect(await inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM schedules").one().n)).toBe(0);
}, 90_000);

it("a schedule request waiting behind another when a DELETE came tells the account nothing of the deleted thread", async () => {
  const id = (await json("POST", "/threads", { agent: "guarantees" })).body.threadId as string;
  const tag = crypto.randomUUID();
  // The first count reaches the account at once; its answer comes back when released.
  await inThread(id, (t) => {
    const peers = t.world!.peers;
    const count = peers.countSchedules.bind(peers);
    peers.countSchedules = (...args: Parameters<typeof count>) => {
      peers.countSchedules = count;
      const answered = count(...args);
      return new Promise((resolve, reject) => void (heldCounts[tag] = () => void answered.then(resolve, reject)));
    };
  });
  const body = HOURLY;
  const first = keyed("POST", `/threads/${id}/schedules`, `a-${tag}`, body);
  await until(() => inThread(id, () => heldCounts[tag] !== undefined), "the count check to wait");
  const second = keyed("POST", `/threads/${id}/schedules`, `b-${tag}`, body);
  await until(() => inThread(id, (t) => t.inFlight.count === 2), "the second request to wait behind the first");
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  await inThread(id, () => heldCounts[tag]!());
  expect((await Promise.all([first, second])).map((a) => a.status)).toEqual([404, 404]);
  expect(await countedIn(id)).toBe(0);
}, 90_000);

it("a deleted thread's schedule request waiting for the account does not hold up the new thread's", async () => {
  const { id, tag, made, straggler, release } = await countHeldAcrossDelete("schedule-chain");
  expect((await made()).status).toBe(201);
  // Held up, it would answer only once the deleted thread's request did: it is given 5 s.
  const fresh = keyed("POST", `/threads/${id}/schedules`, `new-${tag}`, HOURLY);
  const early = await Promise.race([fresh.then((r) => r.status), new Promise((r) => setTimeout(() => r("no answer"), 5000))]);
  await release();
  await straggler;
  expect(early).toBe(201);
}, 90_000);

it("a count change left on a deleted thread's chain does not overwrite the new thread's", async () => {
  const token = `chain-lifetime:${crypto.randomUUID()}`;
  const made = () => json("POST", "/threads", { agent: "guarantees", continuationToken: token });
  const id = (await made()).body.threadId as string;
  const body = HOURLY;
  const first = await keyed("POST", `/threads/${id}/schedules`, `s0-${token}`, body);
  expect(first.status).toBe(201);
  const gates = (g.__gates ??= {});
  /** Holds the thread's next count until `gates[tag].go()` sends it or `.fail()` makes the account unreachable. */
  const hold = (tag: string) =>
    inThread(id, (t) => {
      const peers = t.world!.peers;
      const count = peers.countSchedules.bind(peers);
      peers.countSchedules = (...args: Parameters<typeof count>) => {
        peers.countSchedules = count;
        return new Promise((resolve, reject) => void (gates[tag] = { go: () => void count(...args).then(resolve, reject), fail: () => reject(new Error("account unreachable")) }));
      };
    });
  await hold(`old-${token}`);
  const straggler = keyed("POST", `/threads/${id}/schedules`, `c1-${token}`, body);
  await until(() => inThread(id, () => gates[`old-${token}`] !== undefined), "the old request's count to wait");
  // A cancel queues its recount on the old chain, behind the held request.
  expect((await json("DELETE", `/threads/${id}/schedules/${first.body.scheduleId}`)).status).toBe(200);
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  expect((await made()).status).toBe(201);
  await hold(`new-${token}`);
  // The old request fails at the account: its chain goes on to the cancel's recount.
  await inThread(id, () => gates[`old-${token}`]!.fail());
  const fresh = keyed("POST", `/threads/${id}/schedules`, `c2-${token}`, body);
  await until(() => inThread(id, () => gates[`new-${token}`] !== undefined), "the new thread's count to wait");
  await inThread(id, () => gates[`new-${token}`]!.go());
  expect((await fresh).status).toBe(201);
  await straggler;
  const active = (await json("GET", `/threads/${id}/schedules`)).body.schedules.filter((s: { status: string }) => s.status === "active").length;
  expect({ active, counted: await countedIn(id) }).toEqual({ active: 1, counted: 1 });
}, 90_000);
