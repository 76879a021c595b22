/**
 * A write's journal row that cannot be stored (SQLite refuses it, as it does a row over Cloudflare's
 * 2 MB or a full database: injected here by failing `INSERT INTO calls` for one call) stops the call
 * before `execute` runs: no effect without its row, no second run after a crash. A journal row kept
 * in memory while `execute` ran would fail only after the effect left (found by a hostile review).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, json, keyed, rawStub } from "../helpers.js";
import { crashAt, waitAtRest, waitForAlarm } from "./matrix.js";
import { firedCrashes } from "./plan.js";

/** Makes `INSERT INTO calls` throw for the rows `matches` picks, as SQLite would for a row over its limit. */
async function failCallInserts(threadId: string, matches: (bindings: unknown[]) => boolean): Promise<void> {
  await runInDurableObject(rawStub(threadId), (_instance, state) => {
    const sql = state.storage.sql as SqlStorage & { exec: SqlStorage["exec"] };
    const exec = sql.exec.bind(sql);
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      if (/^INSERT INTO calls/.test(query) && matches(bindings)) throw new Error("string or blob too big: SQLITE_TOOBIG");
      return exec(query, ...bindings);
    }) as SqlStorage["exec"];
  });
}

describe("a write whose journal row cannot be stored", () => {
  it("does not run: a keyed direct call and its retry leave no effect without a row", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    expect((await json("POST", "/v1/tools/effect_read", { input: { label: "warm" }, sessionId: threadId })).status).toBe(200);
    await failCallInserts(threadId, (bindings) => bindings.some((b) => typeof b === "string" && b.includes("TOOBIG_MARK")));
    const body = { input: { label: "TOOBIG_MARK" }, sessionId: threadId };
    const first = await keyed("POST", "/v1/tools/effect_write", "failed-row-key-1", body);
    const retry = await keyed("POST", "/v1/tools/effect_write", "failed-row-key-1", body);
    const callId = (first.body?.callId ?? retry.body?.callId ?? first.body?.error?.details?.callId) as string | undefined;
    const calls = await callsOf(threadId);
    const ids = [...new Set([...(callId ? [callId] : []), ...calls.map((c) => c.callId)])];
    for (const id of ids) {
      const { runs } = await effectRuns(threadId, id);
      expect(runs, `runs of ${id}`).toBeLessThanOrEqual(1);
      if (runs > 0) expect(calls.some((c) => c.callId === id), `row of ${id}`).toBe(true);
    }
  }, 120_000);

  it("does not run twice when the thread then crashes inside execute", async () => {
    const threadId = await createThread({ agent: "guarantees" });
    await failCallInserts(threadId, (bindings) => bindings[0] === "c" && bindings[2] === "effect_write");
    await crashAt(threadId, "c", "inside_execute");
    await json("POST", `/threads/${threadId}/messages`, { content: "go", script: [{ toolCalls: [{ id: "c", name: "effect_write", arguments: {} }] }, { text: "done" }] }).catch(() => undefined);
    expect(await waitAtRest(threadId)).toBeNull();
    // Where the effect ran, the crash inside it fired: the alarm's recovery is what could run it again.
    if (firedCrashes(threadId).length > 0) {
      expect(await waitForAlarm(threadId)).toBe(true);
      expect(await waitAtRest(threadId)).toBeNull();
    }
    expect((await effectRuns(threadId, "c")).runs).toBeLessThanOrEqual(1);
  }, 120_000);
});
