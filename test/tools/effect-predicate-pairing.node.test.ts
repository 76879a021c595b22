/**
 * An effect predicate's answer obeys the same pairing rule as a declared effect: `idempotent`
 * needs the tool's `dedupWindowMs`, `reconcilable` its `reconcile`. Plain Node, memory world.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import { memoryWorld } from "../calls/memory-world.js";

const args = z.object({ kind: z.enum(["idempotent", "reconcilable", "read"]) });

function fixture() {
  let runs = 0;
  const execute = async () => (runs++, { status: "success" as const, result: "done" });
  const tools = {
    bare: defineTool({ description: "a predicate with nothing to pair with", args, effect: (i) => i.kind, execute }),
    paired: defineTool({
      description: "a predicate whose answers are each paired",
      args,
      effect: (i) => i.kind,
      dedupWindowMs: 60_000,
      reconcile: { lookup: async () => ({ status: "not_found" }), finality: "final" },
      execute,
    }),
  };
  const { world } = memoryWorld(tools);
  return { runner: new CallRunner(world), runs: () => runs };
}

const ask = (callId: string, toolName: string, kind: string) => ({ callId, toolName, args: { value: { kind } }, source: "model" as const });

describe("an effect predicate's answer", () => {
  it("idempotent without dedupWindowMs, or reconcilable without reconcile, ends the call with an error naming the predicate; nothing runs", async () => {
    const { runner, runs } = fixture();
    const idem = await runner.request(null, ask("a", "bare", "idempotent"));
    expect(idem).toMatchObject({ status: "failed" });
    expect(idem.result.error).toMatch(/effect predicate failed: .*idempotent.*dedupWindowMs/);
    const rec = await runner.request(null, ask("b", "bare", "reconcilable"));
    expect(rec).toMatchObject({ status: "failed" });
    expect(rec.result.error).toMatch(/effect predicate failed: .*reconcilable.*reconcile/);
    expect(runs()).toBe(0);
  });

  it("runs the call when the tool carries what the answer needs, and a read needs nothing", async () => {
    const { runner, runs } = fixture();
    expect(await runner.request(null, ask("a", "paired", "idempotent"))).toMatchObject({ status: "succeeded" });
    expect(await runner.request(null, ask("b", "paired", "reconcilable"))).toMatchObject({ status: "succeeded" });
    expect(await runner.request(null, ask("c", "bare", "read"))).toMatchObject({ status: "succeeded" });
    expect(runs()).toBe(3);
  });
});
