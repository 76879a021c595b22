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
    await thread.client.createSchedule(thread.id, { at: Date.now() + 200, target: { agent: "guarantees", message: "Remind me." } });
    const turn = await thread.nextTurn();
    expect([turn.status, turn.turn?.status, turn.text]).toEqual(["idle", "completed", "Reminder sent."]);
    expect(turn.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("throws after its timeout when no turn comes", async () => {
    const thread = await createTestThread({ token: API_KEYS.tester, agent: "guarantees" });
    await expect(thread.nextTurn({ timeoutMs: 300 })).rejects.toThrow(/after 300 ms/);
  });
});
