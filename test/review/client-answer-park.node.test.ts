/**
 * A client tool's call that waits for a person, not for the client (recovery parked it because its
 * input no longer passes the tool's schema; a deploy made a parked write a client tool): the
 * client's answer is refused, and a stop leaves it for the person as it leaves any such write.
 * In plain Node over the memory world.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { CLIENT_WAIT_REASON } from "../../src/calls/client.js";
import { CallRunner } from "../../src/calls/runner.js";
import type { ExecutionState } from "../../src/tools/thread-state.js";
import { defineTool } from "../../src/tools/define.js";
import { memoryWorld } from "../calls/memory-world.js";

const pick = defineTool({ description: "pick a file in the browser", args: z.object({ prompt: z.string() }), executionMode: "client" });

it("a call recovery parked for a person (input the schema refuses now) takes no client answer", async () => {
  const { world, journal } = memoryWorld({ pick });
  journal.insert({ callId: "p", toolName: "pick", source: "model", status: "started", argsText: '{"prompt":5}', effectKey: "t:p" });
  const runner = new CallRunner(world);
  await runner.recover();
  expect(journal.get("p")).toMatchObject({ status: "parked", parkReason: expect.stringContaining("a person must settle it") });
  await expect(runner.settle("p", { outcome: "answered", answer: { result: "x" }, settledBy: "u" })).rejects.toMatchObject({ code: "call_not_waiting" });
  expect(journal.get("p")).toMatchObject({ status: "parked" });
});

it("a write parked for a person whose tool a deploy made a client tool takes no client answer", async () => {
  const { world, journal } = memoryWorld({ pick });
  journal.insert({ callId: "w", toolName: "pick", source: "model", status: "started", argsText: '{"prompt":"a"}', effectKey: "t:w" });
  journal.park("w", "interrupted by a restart; a write never runs twice, so a person must settle it");
  const runner = new CallRunner(world);
  await expect(runner.settle("w", { outcome: "answered", answer: { result: "x" }, settledBy: "u" })).rejects.toMatchObject({ code: "call_not_waiting" });
  expect(journal.get("w")).toMatchObject({ status: "parked" });
});

it("a stop leaves a client tool's call parked for a person to that person; one waiting for the client ends aborted", async () => {
  const { world, journal } = memoryWorld({ pick });
  journal.insert({ callId: "w", toolName: "pick", source: "model", status: "started", argsText: '{"prompt":"a"}', effectKey: "t:w", turnId: "turn_1" });
  journal.park("w", "interrupted by a restart; a write never runs twice, so a person must settle it");
  journal.insert({ callId: "c", toolName: "pick", source: "model", status: "started", argsText: '{"prompt":"b"}', effectKey: "t:c", turnId: "turn_1" });
  journal.park("c", CLIENT_WAIT_REASON);
  const controller = new AbortController();
  const turn = { flowId: "turn_1", depth: 0, signal: controller.signal, state: {} as ExecutionState, context: {} };
  controller.abort(new Error("stopped"));
  await new CallRunner(world).stop(turn);
  expect([journal.get("w")?.status, journal.get("c")?.status]).toEqual(["parked", "aborted"]);
});
