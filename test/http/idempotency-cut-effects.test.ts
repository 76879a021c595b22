/**
 * A keyed request cut by a restart after its effect was stored but before its answer was: the
 * retry under the same Idempotency-Key must not act again. A message's enqueue and a schedule's
 * row keep the key's answer in their own transaction, and a retry in a new instance replays it.
 * Found by a hostile review: the retry posted the message a second time (a second turn ran).
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread, json, keyed, messagesOf, stubOf, until } from "../helpers.js";

describe("an Idempotency-Key whose request was cut after its effect", () => {
  it("a message stored before the restart is not posted again by the retry", async () => {
    const id = await createThread({ agent: "hooked" });
    const key = `key-${crypto.randomUUID()}`;
    const body = { content: "slow-after-word hello", script: [{ text: "hi there" }, { text: "hi again" }] };
    const first = keyed("POST", `/threads/${id}/messages`, key, body).catch((e: unknown) => e);
    // The message is stored; its after_create_message hook still waits on its I/O.
    await until(async () => (await messagesOf(id)).some((m) => m.content === "slow-after-word hello"), "the message to be stored");
    await inThread(id, (t) => t.ctx.abort("restart while a hook runs")).catch(() => undefined);
    await first;
    const retry = await keyed("POST", `/threads/${id}/messages`, key, body);
    expect(retry).toEqual({ status: 202, body: { queued: true } });
    await stubOf(id).waitIdle();
    const users = (await messagesOf(id)).filter((m) => m.role === "user").map((m) => m.content);
    expect(users).toEqual(["slow-after-word hello"]);
    // A third request under the key replays the same answer.
    expect(await keyed("POST", `/threads/${id}/messages`, key, body)).toEqual(retry);
  });

  it("a schedule stored before the restart is not made again by the retry", async () => {
    const id = await createThread({ agent: "guarantees" });
    const key = `key-${crypto.randomUUID()}`;
    const body = { every: "1h", target: { tool: "effect_read", input: {} } };
    // The restart comes while the schedule's alarm is being set, after its row.
    await inThread(id, (t) => {
      (t as unknown as { schedules: { host: { wakeBy: () => Promise<void> } } }).schedules.host.wakeBy = () => new Promise<void>(() => undefined);
    });
    const first = keyed("POST", `/threads/${id}/schedules`, key, body).catch((e: unknown) => e);
    const rows = () => inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM schedules").one().n as number);
    await until(async () => (await rows()) === 1, "the schedule's row");
    await inThread(id, (t) => t.ctx.abort("restart while the alarm is set")).catch(() => undefined);
    await first;
    const retry = await keyed("POST", `/threads/${id}/schedules`, key, body);
    expect(retry).toMatchObject({ status: 201, body: { status: "active", schedule: { everyMs: 3_600_000 } } });
    expect(await rows()).toBe(1);
    const listed = await json("GET", `/threads/${id}/schedules`);
    expect(listed.body.schedules.map((s: { id: string }) => s.id)).toEqual([retry.body.id]);
  });
});
