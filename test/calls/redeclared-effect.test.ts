/**
 * A call interrupted by a restart after a deploy redeclared its tool: recovery runs it under the
 * more cautious of the class its journal row was started under and the class the tool has now,
 * so a write redeclared `read` (or `idempotent`) is parked, never run again.
 */
import { describe, expect, it } from "vitest";
import { waitAtRest, waitForAlarm } from "../crash/matrix.js";
import { firedCrashes, planCrashes } from "../crash/plan.js";
import { declare } from "../fixtures/lib/redeclared.js";
import { callsOf, createThread, effectRuns, stubOf } from "../helpers.js";
import type { Effect } from "../../src/index.js";

/**
 * Calls `tool` directly as call `c`, started as `from`; the tool is redeclared `to` once its effect
 * happened, and the thread is cut right after (`after_effect`). Answers the call once the
 * thread's alarm recovered it, and how often its effect ran.
 */
async function cutAfterRedeclare(tool: string, from: Effect, to: Effect) {
  const id = await createThread({ agent: "guarantees" });
  const label = `redeclared-${id}`;
  declare(label, from);
  planCrashes(id, [{ point: "after_effect", callId: "c" }]);
  const owner = { userId: "tester", name: "tester", roles: [], admin: false };
  await stubOf(id).callTool(owner, { toolName: tool, input: { label, becomes: to }, callId: "c" }).catch(() => undefined);
  expect(firedCrashes(id)).toEqual(["after_effect:c"]);
  expect(await waitForAlarm(id)).toBe(true);
  expect(await waitAtRest(id)).toBeNull();
  const call = (await callsOf(id)).find((c) => c.callId === "c");
  return { status: call?.status, runs: (await effectRuns(id, "c")).runs, parkReason: call?.parkReason };
}

describe("recovering a call whose tool a deploy redeclared", () => {
  it("a write redeclared read is parked; execute ran once", async () => {
    const cut = await cutAfterRedeclare("effect_redeclared", "write", "read");
    expect(cut).toEqual({ status: "parked", runs: 1, parkReason: expect.stringMatching(/a write never runs twice/) });
  });

  it("a write redeclared idempotent is parked, though inside the window; execute ran once", async () => {
    const cut = await cutAfterRedeclare("effect_redeclared", "write", "idempotent");
    expect(cut).toEqual({ status: "parked", runs: 1, parkReason: expect.stringMatching(/a write never runs twice/) });
  });

  it("an idempotent call redeclared read keeps its window: past it, parked; execute ran once", async () => {
    const cut = await cutAfterRedeclare("effect_redeclared_short", "idempotent", "read");
    expect(cut).toEqual({ status: "parked", runs: 1, parkReason: expect.stringMatching(/past its 1 ms dedup window/) });
  });
});
