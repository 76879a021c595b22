/**
 * A client tool's call a restart cut before its park (while its `tool_call_started` hook ran) is
 * parked for the client on recovery, never parked for a person as a write would be; nothing runs.
 * In plain Node over the memory world.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { CallRunner } from "../../src/calls/runner.js";
import { defineTool } from "../../src/tools/define.js";
import { memoryWorld } from "./memory-world.js";

it("recovery parks a started client tool call for the client's answer, with its input", async () => {
  const pick = defineTool({ description: "pick a file in the browser", args: z.object({ prompt: z.string() }), executionMode: "client" });
  const { world, journal, events } = memoryWorld({ pick });
  journal.insert({ callId: "p", toolName: "pick", source: "model", status: "started", argsText: '{"prompt":"a"}', effectKey: "t:p" });
  const [outcome] = await new CallRunner(world).recover();
  expect(outcome).toMatchObject({ callId: "p", status: "parked", final: false });
  expect(journal.get("p")).toMatchObject({ status: "parked", parkReason: expect.stringContaining("client") });
  expect(events.filter((e) => e.type === "tool_call_parked").map((e) => e.data)).toEqual([
    { callId: "p", toolName: "pick", reason: expect.stringContaining("client"), client: true, input: { prompt: "a" } },
  ]);
});
