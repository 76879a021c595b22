/**
 * `background: "per-call"` (src/run/agent-tool.ts): the agent's tool input gains an optional
 * boolean `background`; a call that passes `true` runs detached (answers at once with its run id,
 * its completion comes once as a message), one that does not waits for the child as usual, and the
 * child's arguments never carry the choice. After a restart, the call's recovery (`lookup`) tells
 * the two apart from the call's recorded input.
 */
import { describe, expect, it } from "vitest";
import { checkAgentDefinition } from "../../src/run/agent.js";
import { callsOf, createThread, eventsOf, inThread, json, runTurn, until } from "../helpers.js";

describe('background: "per-call"', () => {
  it("the model sees the optional field; a call with background: true runs detached, one without waits, and neither child's arguments name it", async () => {
    const id = await createThread({ agent: "bg_lead" });
    const schema = await inThread(id, (i) => i.world.catalog.get("bg_either").inputSchema);
    expect(schema.properties).toMatchObject({ input: { type: "string" }, background: { type: "boolean" } });
    expect(schema.required).toEqual(["input"]);
    const toolCalls = [
      { id: "d1", name: "bg_either", arguments: { input: "detached question", background: true } },
      { id: "w1", name: "bg_either", arguments: { input: "waited question" } },
    ];
    await runTurn(id, "research", [{ toolCalls }, { text: "Started." }, { text: "noted" }]);
    const calls = await callsOf(id);
    const detached = JSON.parse((calls.find((c) => c.callId === "d1")!.result as { result: string }).result);
    expect(detached).toMatchObject({ runId: "run_d1", agentId: "bg_either", status: "running" });
    expect((calls.find((c) => c.callId === "w1")!.result as { result: string }).result).toBe("Findings: 7.");
    // Only the detached call is a run; its completion arrives once.
    await until(async () => (await eventsOf(id)).some((e) => e.type === "run_finished"), "run_finished");
    expect((await inThread(id, (i) => i.schedules.runs.list())).map((r: { runId: string }) => r.runId)).toEqual(["run_d1"]);
    const messages = (await json("GET", `/threads/${id}/messages?limit=1000`)).body.messages as { content: string }[];
    expect(messages.filter((m) => m.content.startsWith("[background run run_d1 (agent bg_either) completed:\nFindings: 7.]"))).toHaveLength(1);
    // The children's arguments are the caller's input without the choice.
    expect(await inThread(detached.childThreadId, (i) => i.world.meta.arguments)).toEqual({ input: "detached question" });
    // Recovery after a restart: lookup finds a detached call's run, and a waited call's answer.
    const found = await inThread(id, async (i) => {
      const lookup = i.world.catalog.get("bg_either").def.reconcile.lookup as (key: string) => Promise<{ status: string; value?: unknown }>;
      const branch = i.world.meta.branchId as string;
      return [await lookup(`${branch}:d1`), await lookup(`${branch}:w1`)];
    });
    expect(found[0]).toMatchObject({ status: "found", value: { status: "success" } });
    expect(JSON.parse((found[0]!.value as { result: string }).result)).toMatchObject({ runId: "run_d1", status: "completed" });
    expect(found[1]).toEqual({ status: "found", value: { status: "success", result: "Findings: 7." } });
  });

  it("is checked at build: a value other than true, false or per-call, and args that name background themselves, are refused", () => {
    const base = { kind: "agent", description: "x", exposeAsTool: true, toolDescription: "x", system: "x" };
    expect(() => checkAgentDefinition("a", { ...base, background: "sometimes" })).toThrow(/background must be true, false or "per-call"/);
    expect(() => checkAgentDefinition("a", { ...base, background: "per-call", args: { type: "object", properties: { background: { type: "string" } } } })).toThrow(/args must not have one/);
    expect(() => checkAgentDefinition("a", { ...base, exposeAsTool: false, background: "per-call" })).toThrow(/background needs exposeAsTool: true/);
    expect(() => checkAgentDefinition("a", { ...base, background: "per-call" })).not.toThrow();
  });
});
