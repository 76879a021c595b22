/**
 * A remote MCP tool the author marked `needsApproval` waits for a person like a local one, across
 * an eviction (the new instance has no connection and no tool list), and approval sends it once.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, json, rawStub, stubOf } from "../helpers.js";

async function received(): Promise<Record<string, number>> {
  return (await fetch("http://tools.mcp.test/__calls")).json();
}

describe("approval of a remote MCP call", () => {
  it("holds the call, sends nothing until approved after an eviction, then sends it once", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const tag = crypto.randomUUID().slice(0, 8);
    await json("POST", `/threads/${id}/messages`, {
      content: "order tea",
      script: [{ toolCalls: [{ id: "o", name: "careful__create_order", arguments: { item: "tea", tag } }] }, { text: "ordered" }],
    });
    await stubOf(id).waitIdle();
    expect((await callsOf(id)).map((c) => `${c.callId}:${c.status}`)).toEqual(["o:awaiting_approval"]);
    expect((await received())[`create_order:${tag}`]).toBeUndefined();

    await evictDurableObject(rawStub(id));
    const approved = await json("POST", `/threads/${id}/calls/o/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ callId: "o", status: "succeeded", result: { result: "order for tea created" } });
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded", approvedBy: "tester", attempts: 1 });
    expect((await received())[`create_order:${tag}`]).toBe(1);
  });
});
