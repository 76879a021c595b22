/**
 * A restart's recovery of a reconcilable call whose lookup finds it: the call's status follows the
 * found result (as a stop's lookup does), in plain Node over the memory world.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import type { ToolResult } from "../../src/protocol.js";
import { memoryWorld } from "./memory-world.js";

function fixture(found: string | ToolResult) {
  let runs = 0;
  const charge = defineTool({
    description: "a reconcilable charge",
    args: z.object({ amount: z.number() }),
    effect: "reconcilable",
    reconcile: { lookup: async () => ({ status: "found", value: found }), finality: "final" },
    execute: async () => (runs++, { status: "success", result: "charged" }),
  });
  const { world, journal } = memoryWorld({ charge });
  journal.insert({ callId: "c", toolName: "charge", source: "model", status: "started", argsText: '{"amount":5}', effectKey: "t:c" });
  return { runner: new CallRunner(world), journal, runs: () => runs };
}

describe("recovery of a reconcilable call that lookup finds", () => {
  it("records a found error result as failed, not succeeded, and does not run it again", async () => {
    const { runner, journal, runs } = fixture({ status: "error", error: "card declined" });
    const [outcome] = await runner.recover();
    expect(outcome).toMatchObject({ callId: "c", status: "failed" });
    expect(journal.get("c")).toMatchObject({ status: "failed", result: { status: "error", error: "card declined" } });
    expect(runs()).toBe(0);
  });

  it("records a found success as succeeded", async () => {
    const { runner, journal } = fixture("charged 5");
    const [outcome] = await runner.recover();
    expect(outcome).toMatchObject({ callId: "c", status: "succeeded" });
    expect(journal.get("c")).toMatchObject({ status: "succeeded", result: { status: "success", result: "charged 5" } });
  });
});
