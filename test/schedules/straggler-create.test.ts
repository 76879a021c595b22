/**
 * A schedule request still waiting for the owner's account (its count check) when a DELETE cut it
 * must not store its schedule once the account answers: the schedules' store is the Durable
 * Object's, shared with a thread made again on the same id (found by a hostile review: the new
 * thread fired the deleted thread's schedule every hour).
 */
import { expect, it } from "vitest";
import { inThread, json, keyed, until } from "../helpers.js";

const g = globalThis as unknown as { __heldCount?: Record<string, () => void> };

/** Holds the thread's next `countSchedules` (the account's answer) until `g.__heldCount[tag]` is called. */
function holdCount(id: string, tag: string): Promise<void> {
  return inThread(id, (t) => {
    const peers = t.world!.peers;
    const count = peers.countSchedules.bind(peers);
    peers.countSchedules = (...args: Parameters<typeof count>) => {
      peers.countSchedules = count;
      return new Promise((resolve, reject) => void ((g.__heldCount ??= {})[tag] = () => void count(...args).then(resolve, reject)));
    };
  });
}

it("a schedule request a DELETE cut stores nothing in the thread made again on the id", async () => {
  const token = `schedule-straggler:${crypto.randomUUID()}`;
  const made = () => json("POST", "/threads", { agent: "guarantees", continuationToken: token });
  const id = (await made()).body.threadId as string;
  const tag = crypto.randomUUID();
  await holdCount(id, tag);
  const straggler = keyed("POST", `/threads/${id}/schedules`, `key-${tag}`, { every: "1h", target: { tool: "effect_read", input: {} } });
  await until(() => inThread(id, () => g.__heldCount?.[tag] !== undefined), "the count check to wait");
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  expect((await made()).status).toBe(201);
  await inThread(id, () => g.__heldCount![tag]!());
  expect((await straggler).status).toBe(404);
  expect((await json("GET", `/threads/${id}/schedules`)).body.schedules).toEqual([]);
  expect(await inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM schedules").one().n)).toBe(0);
}, 90_000);
