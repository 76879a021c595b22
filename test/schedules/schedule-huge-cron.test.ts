/**
 * Review 25: a schedule's `cron` text has no size bound. Every other part of a schedule is bounded
 * as stored (a tool input 64 KiB, a message 32,000 characters, a zone 64), but a cron of a few
 * megabytes (a minute field "0,0,0,...", which croner takes) is stored whole in the schedule's row
 * and its schedule_created event: past SQLite's 2 MB row the insert throws and the request answers
 * 500 internal_error.
 * The docs: bad input answers 400 invalid_schedule (or 413 payload_too_large) with details.path,
 * storing nothing; never a 500.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread, json } from "../helpers.js";

describe("a cron of megabytes", () => {
  it("is refused with a 4xx naming cron, and nothing is stored", async () => {
    const id = await createThread({ agent: "guarantees" });
    // 2.5 MB: a minute field of 1.25 million zeros.
    const minute = Array(1_250_000).fill("0").join(",");
    const res = await json("POST", `/threads/${id}/schedules`, { cron: `${minute} 9 * * *`, timezone: "UTC", target: { tool: "effect_read", input: {} } });
    const stored = await inThread(id, (i) => i.schedules.store.activeCount());
    expect({ status: res.status, path: res.body?.error?.details?.path, stored }).toEqual({ status: expect.toSatisfy((s: number) => s === 400 || s === 413), path: ["cron"], stored: 0 });
  });
});
