/**
 * Tests of the example agent's tools, run directly with an in-memory ThreadState (no thread, no
 * model). Yours can sit beside them: `npm test` runs every `.test.ts` file under agents/.
 */
import { describe, expect, it } from "vitest";
import type { ThreadState, ToolCallContext, ToolResult } from "@standardagents/spec";
import { registry } from "../../src/generated/registry.js";
import { fakeState, runTool } from "../../test/run-tool.js";

const run = (name: string, state: ThreadState, args?: Record<string, unknown>, call?: Partial<ToolCallContext>): Promise<ToolResult> =>
  runTool(registry, name, state, args, call);

describe("the example agent's tools", () => {
  it("add_note keeps both notes of two calls in one step, and list_notes filters them", async () => {
    const { state } = fakeState();
    await Promise.all([
      run("add_note", state, { title: "Milk", body: "two litres" }, { callId: "n1" }),
      run("add_note", state, { title: "Call Bob", body: "about the milk" }, { callId: "n2" }),
    ]);
    const titles = async () => (JSON.parse((await run("list_notes", state)).result ?? "") as Array<{ title: string }>).map((n) => n.title).sort();
    expect(await titles()).toEqual(["Call Bob", "Milk"]);
    // A second run of the same call id adds nothing.
    expect((await run("add_note", state, { title: "Milk", body: "two litres" }, { callId: "n1" })).result).toContain("has 2 note(s)");
    expect(await titles()).toEqual(["Call Bob", "Milk"]);
    const bob = JSON.parse((await run("list_notes", state, { query: "BOB" })).result ?? "") as Array<{ title: string }>;
    expect(bob.map((n) => n.title)).toEqual(["Call Bob"]);
    expect((await run("list_notes", state, { query: "eggs" })).result).toBe('No notes contain "eggs".');
  });

  it("roll_dice stays within its bounds and totals its rolls", async () => {
    const { state } = fakeState();
    for (let i = 0; i < 20; i++) {
      const { rolls, total } = JSON.parse((await run("roll_dice", state, { sides: 3, count: 10 })).result ?? "") as { rolls: number[]; total: number };
      expect(rolls).toHaveLength(10);
      for (const r of rolls) expect(r >= 1 && r <= 3 && Number.isInteger(r)).toBe(true);
      expect(total).toBe(rolls.reduce((a, b) => a + b, 0));
    }
    expect(JSON.parse((await run("roll_dice", state)).result ?? "").rolls).toHaveLength(1);
    await expect(run("roll_dice", state, { sides: 1 })).rejects.toThrow(/^sides: /);
  });

  it("get_current_time reports the UTC instant and weekday", async () => {
    const result = (await run("get_current_time", fakeState().state)).result ?? "";
    expect(result).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \((Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), UTC\)$/);
  });
});
