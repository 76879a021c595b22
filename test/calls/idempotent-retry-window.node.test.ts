/**
 * An idempotent call is retried after a transient failure only while its retry can still reach
 * the provider inside `dedupWindowMs` of the call's first request: the provider dedups the effect
 * key that long and no longer, so a retry past it may repeat the effect. Past it, the failure is
 * the result with its outcome unknown, as a write's (found by review: retries ignored the window).
 * Plain Node, memory world.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TransientError } from "../../src/calls/retry.js";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import { memoryWorld } from "./memory-world.js";

/** An idempotent tool that fails transiently after `slowMs`, with a `windowMs` dedup window. */
function down(windowMs: number, slowMs: number) {
  const counter = { runs: 0 };
  const tool = defineTool({
    description: "always down",
    args: z.object({}),
    effect: "idempotent",
    dedupWindowMs: windowMs,
    execute: async (): Promise<never> => {
      counter.runs++;
      await new Promise((r) => setTimeout(r, slowMs));
      throw new TransientError("the service is down");
    },
  });
  const { world, journal } = memoryWorld({ down: tool });
  return { runner: new CallRunner(world), journal, counter };
}

describe("an idempotent call's retries", () => {
  it("stop once a retry would go out past its dedup window: the failure is the result, its outcome unknown", async () => {
    const { runner, journal, counter } = down(40, 60);
    const outcome = await runner.request(null, { callId: "c", toolName: "down", args: { text: "{}" }, source: "model" });
    expect({ status: outcome.status, runs: counter.runs }).toEqual({ status: "failed", runs: 1 });
    expect(outcome.result.error).toMatch(/its effect may have happened/);
    expect(journal.get("c")?.status).toBe("failed");
  });

  it("go on inside the window, with the same effect key", async () => {
    const { runner, counter } = down(60_000, 0);
    const outcome = await runner.request(null, { callId: "c", toolName: "down", args: { text: "{}" }, source: "model" });
    expect({ status: outcome.status, runs: counter.runs }).toEqual({ status: "failed", runs: 3 });
  });
});
