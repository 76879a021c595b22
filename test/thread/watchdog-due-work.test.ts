import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { crashAt } from "../crash/matrix.js";
import { callsOf, createThread, inThread, json, effectRuns, stubOf } from "../helpers.js";

const PERIOD = Number((env as Record<string, unknown>).WEFT_WATCHDOG_MS);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the watchdog alarm and work a crash left", () => {
  it("a write cut by a crash is parked by the alarm due for it, however many direct calls come meanwhile", async () => {
    const id = await createThread({ agent: "guarantees" });
    const owner = { userId: "tester", name: "tester", roles: [], admin: false };
    // After the effect: the row is durable (the gate let the effect out only then).
    await crashAt(id, "c", "after_effect");
    await stubOf(id).callTool(owner, { toolName: "effect_write", input: {}, callId: "c" }).catch(() => undefined);
    // The restarted object keeps the alarm due for the cut call; calls start just before it fires.
    const due = (await inThread(id, (t) => t.ctx.storage.getAlarm())) as number;
    expect(due).toBeGreaterThan(0);
    await sleep(Math.max(0, due - Date.now() - PERIOD / 5));
    const began = Date.now();
    let status: string | undefined;
    for (let calls = 1; Date.now() - began < 20 * PERIOD; calls++) {
      expect((await json("POST", "/v1/tools/effect_read", { sessionId: id, input: {} })).status).toBe(200);
      // Calls keep coming, a few milliseconds apart (back to back, the local runtime delays every alarm).
      await sleep(5);
      if (calls % 5 !== 0) continue;
      status = (await callsOf(id)).find((c) => c.callId === "c")?.status;
      if (status === "parked") break;
    }
    expect(status).toBe("parked");
    // Cut after its effect: it ran once, and recovery does not run it again.
    expect((await effectRuns(id, "c")).runs).toBe(1);
  });
});
