/**
 * weft/testing's `thread.nextTurn`: waits for a turn the test did not post (here a schedule's) and
 * reports it as `post` does (new-user trial: a schedule test had to poll `info()` by hand).
 */
import { describe, expect, it } from "vitest";
import { createTestThread, scripted } from "../../src/testing/index.js";
import { API_KEYS } from "../keys.js";

describe("thread.nextTurn", () => {
  it("waits for the turn a schedule starts and reports its messages and text", async () => {
    const thread = await createTestThread({ token: API_KEYS.tester, agent: "guarantees", model: scripted([{ text: "Reminder sent." }]) });
    await thread.client.createSchedule(thread.id, { at: Date.now() + 1000, target: { agent: "guarantees", message: "Remind me." } });
    const turn = await thread.nextTurn();
    expect([turn.status, turn.turn?.status, turn.text]).toEqual(["idle", "completed", "Reminder sent."]);
    expect(turn.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("reports a turn that ended before it was called, once: the next call waits for another", async () => {
    const thread = await createTestThread({ token: API_KEYS.tester, agent: "guarantees", model: scripted([{ text: "Already sent." }]) });
    // A second ahead: on a loaded machine the request can take longer than a few hundred ms to reach the thread ("at is in the past").
    await thread.client.createSchedule(thread.id, { at: Date.now() + 1000, target: { agent: "guarantees", message: "Remind me." } });
    for (let info = await thread.info(); info.lastTurn?.status !== "completed"; info = await thread.info()) await new Promise((r) => setTimeout(r, 20));
    const turn = await thread.nextTurn({ timeoutMs: 5_000 });
    expect([turn.turn?.status, turn.text, turn.messages.map((m) => m.role)]).toEqual(["completed", "Already sent.", ["user", "assistant"]]);
    await expect(thread.nextTurn({ timeoutMs: 300 })).rejects.toThrow(/after 300 ms/);
  });

  it("counts from the last outcome the test saw: a posted turn is not next", async () => {
    const thread = await createTestThread({ token: API_KEYS.tester, agent: "guarantees", model: scripted([{ text: "Posted." }]) });
    expect((await thread.post("hello")).text).toBe("Posted.");
    await expect(thread.nextTurn({ timeoutMs: 300 })).rejects.toThrow(/after 300 ms/);
  });

  it("throws after its timeout when no turn comes", async () => {
    const thread = await createTestThread({ token: API_KEYS.tester, agent: "guarantees" });
    await expect(thread.nextTurn({ timeoutMs: 300 })).rejects.toThrow(/after 300 ms/);
  });
});
