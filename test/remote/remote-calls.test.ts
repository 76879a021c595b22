/**
 * Remote MCP tools are calls like any other: offered to the model beside local tools, validated
 * against the server's inputSchema before anything is sent, their effect read from the author's
 * override or the server's hints, and their answers (and isError) recorded as results. The remote
 * is a real MCP SDK server over Streamable HTTP (scripts/lib/fake-mcp.mjs).
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, json, rawStub, runTurn } from "../helpers.js";

/** Calls the fake server received, by `<tool>:<tag>`. */
async function received(): Promise<Record<string, number>> {
  return (await fetch("http://tools.mcp.test/__calls")).json();
}

const tag = () => crypto.randomUUID().slice(0, 8);

describe("remote MCP tools through the call runner", () => {
  it("runs a remote read and records the server's answer", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const t = tag();
    await runTurn(id, "go", [{ toolCalls: [{ id: "c1", name: "remote__lookup", arguments: { id: "42", tag: t } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ toolName: "remote__lookup", status: "succeeded", result: { status: "success", result: "record 42" } });
    expect((await received())[`lookup:${t}`]).toBe(1);
  });

  it("refuses input that fails the server's inputSchema before sending anything", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const t = tag();
    await runTurn(id, "go", [{ toolCalls: [{ id: "c1", name: "remote__create_order", arguments: { item: 7, tag: t } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ status: "failed" });
    expect(call!.result!.error).toMatch(/^invalid_tool_input: .*item/);
    expect((await received())[`create_order:${t}`]).toBeUndefined();
  });

  it("a write, an idempotent call and an author-overridden read each run and record the server's answer", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const [w, i, o] = [tag(), tag(), tag()];
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "w", name: "remote__create_order", arguments: { item: "tea", tag: w } },
          { id: "i", name: "remote__set_flag", arguments: { on: true, tag: i } },
          { id: "o", name: "overridden__lookup", arguments: { id: "1", tag: o } },
        ],
      },
      { text: "done" },
    ]);
    const byId = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(byId.w).toMatchObject({ status: "succeeded", result: { result: "order for tea created" } });
    expect(byId.i).toMatchObject({ status: "succeeded", result: { result: "flag on" } });
    expect(byId.o).toMatchObject({ status: "succeeded", result: { result: "record 1" } });
  });

  it("a read past its deadline is retried under the effect table; a write past it is sent once, its outcome unknown", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const [r, w] = [tag(), tag()];
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "r", name: "slowish__slow", arguments: { ms: 4000, tag: r } },
          { id: "w", name: "slowish__create_order", arguments: { item: "tea", ms: 4000, tag: w } },
        ],
      },
      { text: "done" },
    ]);
    const byId = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(byId.r).toMatchObject({ status: "failed", attempts: 3 });
    // Named, so a reader knows which server did not answer.
    expect(byId.r!.result!.error).toMatch(/^timed out: slowish__slow did not finish within \d+ ms/);
    expect(byId.w).toMatchObject({ status: "failed", attempts: 1, outcome: "unknown" });
    expect(byId.w!.result!.error).toMatch(/The outcome is unknown/);
    const seen = await received();
    expect([seen[`slow:${r}`], seen[`create_order:${w}`]]).toEqual([3, 1]);
  });

  it("an isError answer is an error result with the server's message", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "c1", name: "remote__reject", arguments: {} }] }, { text: "done" }]);
    expect((await callsOf(id))[0]).toMatchObject({ status: "failed", result: { status: "error", error: "the order system is closed today" } });
  });

  it("a remote tool colliding with a local tool is refused; the local one stays", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "c1", name: "clash__lookup", arguments: {} }] }, { text: "done" }]);
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded", result: { result: "local lookup" } });
  });

  it("re-initializes the session after the server forgot it and after the object was evicted", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "c1", name: "remote__lookup", arguments: { id: "1" } }] }, { text: "done" }]);
    await fetch("http://tools.mcp.test/__forget", { method: "POST" });
    await runTurn(id, "again", [{ toolCalls: [{ id: "c2", name: "remote__lookup", arguments: { id: "2" } }] }, { text: "done" }]);
    await evictDurableObject(rawStub(id));
    await runTurn(id, "and again", [{ toolCalls: [{ id: "c3", name: "remote__lookup", arguments: { id: "3" } }] }, { text: "done" }]);
    const calls = await callsOf(id);
    expect(calls.map((c) => [c.callId, c.status, c.result?.result])).toEqual([
      ["c1", "succeeded", "record 1"],
      ["c2", "succeeded", "record 2"],
      ["c3", "succeeded", "record 3"],
    ]);
  });
});

describe("a thread's record", () => {
  it("lists its remote tools among the tools its model is offered before any turn ran", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const info = await json("GET", `/threads/${id}`);
    expect(info.status).toBe(200);
    const lookup = (info.body.tools as Array<{ name: string; description: string }>).find((t) => t.name === "remote__lookup");
    expect(lookup?.description).toBe("Look up a record by id");
  });
});

describe("a direct call of a remote MCP tool", () => {
  it("lists the server first and runs the call through the same pipeline", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const { status, body } = await json("POST", "/v1/tools/remote__lookup", { input: { id: "77" }, sessionId: id });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, result: "record 77" });
  });

  it("without a session is refused unknown_tool, saying to call it in a thread that offers it", async () => {
    const { status, body } = await json("POST", "/v1/tools/remote__lookup", { input: { id: "77" } });
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: "unknown_tool", details: { toolName: "remote__lookup" } });
    expect(body.error.message).toContain('it is a tool of the remote MCP server "remote": call it with the sessionId of a thread whose agent offers it');
  });
});

describe("the older HTTP+SSE transport", () => {
  it("lists and calls tools of a server speaking HTTP+SSE", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const t = tag();
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "r", name: "oldstyle__lookup", arguments: { id: "8", tag: t } },
          { id: "w", name: "oldstyle__create_order", arguments: { item: "jam", tag: t } },
        ],
      },
      { text: "done" },
    ]);
    const byId = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(byId.r).toMatchObject({ status: "succeeded", result: { result: "record 8" } });
    expect(byId.w).toMatchObject({ status: "succeeded", result: { result: "order for jam created" } });
    const seen = await received();
    expect([seen[`lookup:${t}`], seen[`create_order:${t}`]]).toEqual([1, 1]);
  });
});
