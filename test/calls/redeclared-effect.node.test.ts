/**
 * A call that may have run keeps the effect class it was started under when a deploy redeclares
 * its tool: a person's retry, a suspended call resumed, and a stop of a suspended call all run it
 * under the more cautious of that class and the tool's now (recovery: redeclared-effect.test.ts).
 * Plain Node, memory world.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CallExecution } from "../../src/calls/call.js";
import type { CallWorld } from "../../src/calls/context.js";
import { TransientError } from "../../src/calls/retry.js";
import { CallRunner } from "../../src/calls/runner.js";
import { markResumable } from "../../src/calls/suspend.js";
import { defineTool } from "../../src/tools/define.js";
import { EFFECTS, type Effect } from "../../src/tools/types.js";
import { moreCautious } from "../../src/tools/policy.js";
import { type StartedAs, moreCautiousTerms, readStartedAs, startedAs } from "../../src/tools/started-as.js";
import type { ExecutionState } from "../../src/tools/thread-state.js";
import { memoryWorld } from "./memory-world.js";

/** A tool whose class is `declared` (a test changes it, as a deploy would) and whose every run fails transiently; `nested` is the same, and resumes by itself when parked. */
function fixture() {
  const deploy = { declared: "write" as Effect, runs: 0 };
  const def = {
    description: "redeclared between runs; always down",
    args: z.object({}),
    effect: () => deploy.declared,
    dedupWindowMs: 60_000,
    execute: async (): Promise<never> => {
      deploy.runs++;
      throw new TransientError("the service is down");
    },
  };
  const tools = { flaky: defineTool(def), nested: markResumable(defineTool(def), { stillWaiting: async () => false }) };
  const { world, journal } = memoryWorld(tools);
  return { runner: new CallRunner(world), journal, deploy };
}

/** A row started under `effect` by an earlier deploy, then parked (a restart cut it, or the work inside it waited). */
const parkedRow = (callId: string, toolName: string, effect: StartedAs) =>
  [{ callId, toolName, source: "model" as const, status: "started" as const, argsText: "{}", input: {}, effectKey: `t:${callId}`, turnId: "turn_1", effect }, "parked before the deploy"] as const;

function stoppedRun(): CallExecution {
  const controller = new AbortController();
  controller.abort(new Error("stopped"));
  return { flowId: "turn_1", depth: 0, signal: controller.signal, state: {} as ExecutionState, context: {} };
}

describe("the more cautious of two effect classes", () => {
  it("is write above all and read below all; idempotent and reconcilable together are write", () => {
    const table = EFFECTS.map((a) => EFFECTS.map((b) => moreCautious(a, b)).join(" "));
    // Rows and columns in EFFECTS' order: read, write, idempotent, reconcilable.
    expect(table).toEqual(["read write idempotent reconcilable", "write write write write", "idempotent write idempotent write", "reconcilable write write reconcilable"]);
  });
});

describe("the stored terms of a started call", () => {
  it("are the class with its setting, and read back as they were stored; anything else reads as write", () => {
    const stored = [startedAs({ effect: "idempotent", dedupWindowMs: 60_000 }), startedAs({ effect: "reconcilable", finality: "nonfinal" }), startedAs({ effect: "read" })];
    expect(stored).toEqual(["idempotent:60000", "reconcilable:nonfinal", "read"]);
    expect(stored.map(readStartedAs)).toEqual([{ effect: "idempotent", dedupWindowMs: 60_000 }, { effect: "reconcilable", finality: "nonfinal" }, { effect: "read" }]);
    expect(["idempotent", "idempotent:0", "reconcilable:maybe", "read:1", ""].map(readStartedAs)).toEqual(Array(5).fill({ effect: "write" }));
  });

  it("combine with the tool's now as the more cautious: the smaller window, nonfinal if either is", () => {
    expect(moreCautiousTerms({ effect: "idempotent", dedupWindowMs: 60_000 }, { effect: "idempotent", dedupWindowMs: 3_600_000 })).toEqual({ effect: "idempotent", dedupWindowMs: 60_000 });
    expect(moreCautiousTerms({ effect: "read" }, { effect: "idempotent", dedupWindowMs: 5_000 })).toEqual({ effect: "idempotent", dedupWindowMs: 5_000 });
    expect(moreCautiousTerms({ effect: "reconcilable", finality: "final" }, { effect: "reconcilable", finality: "nonfinal" })).toEqual({ effect: "reconcilable", finality: "nonfinal" });
    expect(moreCautiousTerms({ effect: "reconcilable", finality: "final" }, { effect: "read" })).toEqual({ effect: "reconcilable", finality: "final" });
    expect(moreCautiousTerms({ effect: "idempotent", dedupWindowMs: 60_000 }, { effect: "reconcilable", finality: "final" })).toEqual({ effect: "write" });
  });
});

describe("a call started as a write whose tool is now declared read", () => {
  it("a person's retry runs it once as a write: its transient failure is the result, not retried", async () => {
    const { runner, journal, deploy } = fixture();
    const [row, reason] = parkedRow("w", "flaky", "write");
    journal.insert(row);
    journal.park("w", reason);
    deploy.declared = "read";
    const outcome = await runner.settle("w", { outcome: "retry", settledBy: "ann" });
    expect({ status: outcome.status, runs: deploy.runs }).toEqual({ status: "failed", runs: 1 });
    expect(outcome.result.error).toMatch(/its effect may have happened/);
    expect(journal.get("w")?.effect).toBe("write");
  });

  it("resumed once nothing inside waits, it runs once as a write: not retried", async () => {
    const { runner, journal, deploy } = fixture();
    const [row, reason] = parkedRow("s", "nested", "write");
    journal.insert(row);
    journal.park("s", reason);
    deploy.declared = "read";
    const outcome = await runner.request(null, { callId: "s", toolName: "nested", args: { text: "{}" }, source: "model" });
    expect({ status: outcome.status, runs: deploy.runs }).toEqual({ status: "failed", runs: 1 });
  });

  it("suspended when its run is stopped, it stays parked for a person, as a stopped write does (a read is aborted)", async () => {
    const { runner, journal, deploy } = fixture();
    const [row, reason] = parkedRow("s", "nested", "write");
    journal.insert(row);
    journal.park("s", reason);
    deploy.declared = "read";
    expect(await runner.outcomeOf(stoppedRun(), "s")).toMatchObject({ status: "parked", final: false });
    expect(deploy.runs).toBe(0);
  });
});

describe("a call started as idempotent whose tool is now declared read", () => {
  it("recovery keeps its window: a tool without dedupWindowMs now parks it as a write", async () => {
    const deploy = { runs: 0 };
    const tools = { plain: defineTool({ description: "now a read", args: z.object({}), effect: "read", execute: async () => (deploy.runs++, { status: "success" as const, result: "again" }) }) };
    const { world, journal } = memoryWorld(tools);
    journal.insert({ callId: "i", toolName: "plain", source: "model", status: "started", argsText: "{}", input: {}, effectKey: "t:i", effect: "idempotent:60000" });
    const [outcome] = await new CallRunner(world).recover();
    expect({ status: outcome?.status, runs: deploy.runs }).toEqual({ status: "parked", runs: 0 });
  });
});

/** Starts a call of `toolName` in `world` and crashes the thread once its row is journaled, before it runs: the row is left started. */
async function crashedAfterJournal(world: CallWorld, toolName: string): Promise<void> {
  const crashing = { ...world, crashHook: async (point: string) => { if (point === "after_journal") throw new Error("restart"); } };
  await expect(new CallRunner(crashing).request(null, { callId: "c", toolName, args: { text: "{}" }, source: "model" })).rejects.toThrow("restart");
}

describe("a call keeps the settings of the class it started under", () => {
  it("idempotent, started under a 1-minute window and recovered 10 minutes later after a deploy widened the window to an hour: parked, not run again", async () => {
    const deploy = { runs: 0 };
    const execute = async () => (deploy.runs++, { status: "success" as const, result: "again" });
    const tool = defineTool({ description: "its window widened by a deploy", args: z.object({}), effect: "idempotent", dedupWindowMs: 60_000, execute });
    const { world, journal } = memoryWorld({ widened: tool });
    await crashedAfterJournal(world, "widened");
    journal.rows.get("c")!.startedAt! -= 600_000;
    tool.dedupWindowMs = 3_600_000;
    const [outcome] = await new CallRunner(world).recover();
    expect({ status: outcome?.status, runs: deploy.runs }).toEqual({ status: "parked", runs: 0 });
    expect(journal.get("c")?.parkReason).toMatch(/past its 60000 ms dedup window/);
  });

  it("reconcilable nonfinal, redeclared final, whose lookup answers not_found on recovery: parked, not run again", async () => {
    const deploy = { runs: 0, lookups: 0 };
    const execute = async () => (deploy.runs++, { status: "success" as const, result: "again" });
    const reconcile: { lookup: () => Promise<{ status: "not_found" }>; finality: "final" | "nonfinal" } = { lookup: async () => (deploy.lookups++, { status: "not_found" }), finality: "nonfinal" };
    const { world, journal } = memoryWorld({ trusting: defineTool({ description: "its not_found made final by a deploy", args: z.object({}), effect: "reconcilable", reconcile, execute }) });
    await crashedAfterJournal(world, "trusting");
    reconcile.finality = "final";
    const [outcome] = await new CallRunner(world).recover();
    expect({ status: outcome?.status, runs: deploy.runs, lookups: deploy.lookups }).toEqual({ status: "parked", runs: 0, lookups: 1 });
    expect(journal.get("c")?.parkReason).toMatch(/not final/);
  });
});

describe("an idempotent call re-run by recovery and cut again", () => {
  it("is held to the window of its first start: a second recovery past that window parks it, though the re-run began inside it", async () => {
    const deploy = { runs: 0 };
    const execute = async () => (deploy.runs++, { status: "success" as const, result: "again" });
    const { world, journal } = memoryWorld({ keyed: defineTool({ description: "its service dedups a key for a minute from the first request", args: z.object({}), effect: "idempotent", dedupWindowMs: 60_000, execute }) });
    await crashedAfterJournal(world, "keyed");
    // First start (and its request) 50 s ago: recovery re-runs it inside the window, and the re-run is cut again after its row.
    journal.rows.get("c")!.startedAt! -= 50_000;
    const crashing = { ...world, crashHook: async (point: string) => { if (point === "after_journal") throw new Error("restart"); } };
    await expect(new CallRunner(crashing).recover()).rejects.toThrow("restart");
    // 50 s later: 100 s after the first request, whose key the service has forgotten.
    journal.rows.get("c")!.startedAt! -= 50_000;
    const [outcome] = await new CallRunner(world).recover();
    expect({ status: outcome?.status, runs: deploy.runs }).toEqual({ status: "parked", runs: 0 });
  });
});
