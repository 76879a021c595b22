/**
 * A call stored before a deploy changed its tool's input schema, on the paths that read its
 * stored input back: what the tool as deployed now refuses is never run, and a call that may
 * already have run is not run again with other input.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { argsHashOf } from "../../src/calls/input.js";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import type { Effect } from "../../src/tools/types.js";
import { memoryWorld } from "./memory-world.js";

/** A tool whose `amount` is now text; calls stored under the old schema sent a number. */
function fixture(effect: Effect) {
  const ran: unknown[] = [];
  const pay = defineTool({
    description: "pays",
    args: z.object({ amount: z.string() }),
    effect,
    ...(effect === "idempotent" ? { dedupWindowMs: 60_000 } : {}),
    execute: async (_state, args) => (ran.push(args), { status: "success", result: "paid" }),
  });
  const { world, journal } = memoryWorld({ pay });
  return { runner: new CallRunner(world), journal, ran };
}

describe("a call stored before its tool's schema changed", () => {
  it.each(["read", "idempotent"] as const)("restart recovery of a started %s call the tool now refuses: parked, not run", async (effect) => {
    const { runner, journal, ran } = fixture(effect);
    journal.insert({ callId: "c", toolName: "pay", source: "model", status: "started", argsText: '{"amount":5}', effectKey: "t:c" });
    journal.rows.get("c")!.input = { amount: 5 };
    const [outcome] = await runner.recover();
    expect(ran).toEqual([]);
    expect(outcome).toMatchObject({ callId: "c", status: "parked" });
    expect(journal.get("c")!.parkReason).toMatch(/amount/);
  });

  it("a person's retry of a parked call the tool now refuses: refused with invalid_tool_input, still parked, not run", async () => {
    const { runner, journal, ran } = fixture("write");
    journal.insert({ callId: "c", toolName: "pay", source: "direct", status: "started", argsText: '{"amount":5}', effectKey: "t:c" });
    Object.assign(journal.rows.get("c")!, { input: { amount: 5 }, status: "parked", parkReason: "interrupted" });
    await expect(runner.settle("c", { outcome: "retry", settledBy: "ann" })).rejects.toMatchObject({ code: "invalid_tool_input" });
    expect(ran).toEqual([]);
    expect(journal.get("c")).toMatchObject({ status: "parked" });
    // The person can still settle it by hand.
    await expect(runner.settle("c", { outcome: "failed", error: "gave up", settledBy: "ann" })).resolves.toMatchObject({ status: "failed" });
  });

  it("approval when the model's text passes the new schema but the stored input it approved does not: failed, not run", async () => {
    const { runner, journal, ran } = fixture("write");
    // Asked under `amount: z.coerce.number()`: the text said "5", the approved input holds 5.
    journal.insert({ callId: "c", toolName: "pay", source: "model", status: "queued", argsText: '{"amount":"5"}', effectKey: "t:c" });
    journal.awaitApproval("c", { amount: 5 }, await argsHashOf({ amount: 5 }, "memory-world args key"));
    const outcome = await runner.approve("c", "ann");
    expect(ran).toEqual([]);
    expect(outcome).toMatchObject({ callId: "c", status: "failed" });
    expect(journal.get("c")!.result!.error).toMatch(/^invalid_tool_input: .*it did not run/);
  });
});
