/**
 * A crash of the thread after a remote MCP call was sent and answered, before its result was
 * recorded: the recovered thread (a new instance, with no connection and no tool list) parks the
 * write for a person without sending it again, and sends the read again. The remote is a real
 * MCP SDK server (scripts/lib/fake-mcp.mjs) counting what it received.
 */
import { describe, expect, it } from "vitest";
import { firedCrashes, planCrashes } from "../crash/plan.js";
import { waitAtRest } from "../crash/matrix.js";
import { callsOf, createThread, json, until } from "../helpers.js";

async function received(): Promise<Record<string, number>> {
  return (await fetch("http://tools.mcp.test/__calls")).json();
}

describe("a crash after a remote call was sent", () => {
  const cases = [
    ["remote__create_order", { item: "tea" }, "parked", 1, "create_order"],
    ["remote__lookup", { id: "5" }, "succeeded", 2, "lookup"],
  ] as const;
  for (const [tool, args, status, times, remote] of cases) it(`${tool}: the recovered call ends ${status}, the server received it ${times} time(s)`, async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const tag = crypto.randomUUID().slice(0, 8);
    planCrashes(id, [{ point: "after_effect", callId: "c" }]);
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "c", name: tool, arguments: { ...args, tag } }] }, { text: "done" }] }).catch(() => undefined);
    await until(async () => firedCrashes(id).length > 0, "the crash");
    expect(await waitAtRest(id)).toBeNull();
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ callId: "c", status });
    expect((await received())[`${remote}:${tag}`]).toBe(times);
  });

  it("a crash before the step's remote call was journaled: the resumed turn lists the server again and runs the call", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const tag = crypto.randomUUID().slice(0, 8);
    planCrashes(id, [{ point: "before_journal", callId: "b" }]);
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "b", name: "remote__lookup", arguments: { id: "7", tag } }] }, { text: "done" }] }).catch(() => undefined);
    await until(async () => firedCrashes(id).length > 0, "the crash");
    expect(await waitAtRest(id)).toBeNull();
    const [call] = await callsOf(id);
    expect(call, JSON.stringify(call)).toMatchObject({ callId: "b", status: "succeeded", result: { status: "success", result: "record 7" } });
    expect((await received())[`lookup:${tag}`]).toBe(1);
  });

  it("to a server with weft's effect-key extension, a write is sent again with its key after the crash and ends with the one recorded answer", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const tag = crypto.randomUUID().slice(0, 8);
    planCrashes(id, [{ point: "after_effect", callId: "k" }]);
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "k", name: "weftlike__create_order", arguments: { item: "tea", tag } }] }, { text: "done" }] }).catch(() => undefined);
    await until(async () => firedCrashes(id).length > 0, "the crash");
    expect(await waitAtRest(id)).toBeNull();
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ callId: "k", status: "succeeded" });
    expect(call!.result!.result).toMatch(/^order for tea created under \S+:k$/);
    const seen = await received();
    expect([seen[`create_order:received:${tag}`], seen[`create_order:${tag}`]]).toEqual([2, 1]);
  });

  it("to a server with weft's effect-key extension, a write answered -32603 (its run was cut) is asked again with its key until the server knows its outcome", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const tag = crypto.randomUUID().slice(0, 8);
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "u", name: "weftlike__create_order", arguments: { item: "tea", tag, cut: 2 } }] }, { text: "done" }] });
    expect(await waitAtRest(id)).toBeNull();
    const [call] = await callsOf(id);
    expect(call, JSON.stringify(call)).toMatchObject({ callId: "u", status: "succeeded", attempts: 3 });
    expect(call!.result!.result).toMatch(/^order for tea created under \S+:u$/);
    const seen = await received();
    expect([seen[`create_order:received:${tag}`], seen[`create_order:${tag}`]]).toEqual([3, 1]);
  });
});
