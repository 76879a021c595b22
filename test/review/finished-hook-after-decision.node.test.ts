/**
 * The `tool_call_finished` hook runs for a call's final result however it came: a client's answer
 * to a client tool's call, a person's approval (the call then runs), denial or settlement, as for a
 * call that ran in a turn. A decision took the result outside the pipeline's request, which alone
 * ran the hook, so an author's hook never saw a decided call. In plain Node over the memory world.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WeftError } from "../../src/errors.js";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import { memoryWorld } from "../calls/memory-world.js";

const pick = defineTool({ description: "pick a file in the browser", args: z.object({ prompt: z.string() }), executionMode: "client" });
const pay = defineTool({ description: "pay", args: z.object({ amount: z.number() }), effect: "write", needsApproval: true, execute: async () => ({ status: "success", result: "paid" }) });

/** A runner whose world has a `tool_call_finished` hook, recording `callId:status` (and throwing when `fails`). */
function hooked(fails = false) {
  const { world, journal } = memoryWorld({ pick, pay });
  const seen: string[] = [];
  const runner = new CallRunner({
    ...world,
    hasToolHook: (name) => name === "tool_call_finished",
    toolHook: async (_execution, _name, data) => {
      seen.push(`${(data as { callId: string }).callId}:${(data as { status: string }).status}`);
      if (fails) throw new WeftError("hook_failed", 'hook "tool_call_finished" threw: no');
    },
  });
  return { runner, journal, seen };
}

const ask = (callId: string, toolName: string, value: unknown) => ({ callId, toolName, args: { value }, source: "model" as const });

describe("the tool_call_finished hook after a decision", () => {
  it("runs for a client's answer, an approval, a denial and a settlement", async () => {
    const { runner, seen } = hooked();
    await runner.request(null, ask("c", "pick", { prompt: "a" }));
    await runner.request(null, ask("a", "pay", { amount: 1 }));
    await runner.request(null, ask("d", "pay", { amount: 2 }));
    await runner.request(null, ask("s", "pick", { prompt: "b" }));
    expect(seen).toEqual([]);
    await runner.settle("c", { outcome: "answered", answer: { result: "file" }, settledBy: "u" });
    await runner.approve("a", "u");
    await runner.deny("d", "u");
    await runner.settle("s", { outcome: "failed", error: "gave up", settledBy: "u" });
    expect(seen).toEqual(["c:succeeded", "a:succeeded", "d:denied", "s:failed"]);
  });

  it("a hook that throws there leaves the decision recorded (there is no run to fail)", async () => {
    const { runner, journal, seen } = hooked(true);
    await runner.request(null, ask("c", "pick", { prompt: "a" }));
    const outcome = await runner.settle("c", { outcome: "answered", answer: { result: "file" }, settledBy: "u" });
    expect(outcome).toMatchObject({ status: "succeeded", final: true });
    expect(journal.get("c")).toMatchObject({ status: "succeeded" });
    expect(seen).toEqual(["c:succeeded"]);
  });
});
