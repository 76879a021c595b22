/**
 * A remote tool that declares an `outputSchema` has its results checked against it by the
 * pipeline's one output rule (stage 9, `invalid_tool_output`), as the MCP specification asks of
 * clients (2025-06-18, Tools > Output Schema): the model sees the structured result; a result that
 * does not conform, structured or text, is an error result whose effect happened, recorded once;
 * an `isError` answer is not checked. An outputSchema weft cannot compile leaves the tool offered
 * unchecked, said as a problem; an oversized one refuses the tool. The server is shaped.mcp.test
 * (scripts/lib/fake-mcp-schemas.mjs); each call has its own `tag`.
 */
import { describe, expect, it } from "vitest";
import { MAX_REMOTE_SCHEMA_CHARS, RemoteServers } from "../../src/remote/servers.js";
import { registry } from "../generated/registry.js";
import { callsOf, createThread, json, runTurn } from "../helpers.js";

/** The outputSchema shaped.mcp.test's `report` declares (scripts/lib/fake-mcp-schemas.mjs). */
const REPORT = { type: "object", properties: { count: { type: "integer" }, items: { type: "array", items: { type: "string" } } }, required: ["count", "items"] };

const tag = () => `ro-${crypto.randomUUID().slice(0, 8)}`;

/** Calls shaped.mcp.test received of `tool` with `tag`. */
async function received(tool: string, t: string): Promise<number> {
  return ((await (await fetch("http://shaped.mcp.test/__calls")).json()) as Record<string, number>)[`${tool}:${t}`] ?? 0;
}

/** The one call record of a turn in which the model calls `shaped__report` answering `answer`. */
async function reportTurn(answer: string, t: string) {
  const id = await createThread({ agent: "remote_shaped" });
  await runTurn(id, "go", [{ toolCalls: [{ id: "r", name: "shaped__report", arguments: { answer, tag: t } }] }, { text: "done" }]);
  const calls = await callsOf(id);
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

describe("a remote tool with an outputSchema", () => {
  it("gives the model the structured result, not the text beside it, with its attachments", async () => {
    const t = tag();
    const call = await reportTurn("conforming", t);
    expect(call).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(call.result).toEqual({ status: "success", result: '{"count":2,"items":["a","b"]}', attachments: [expect.objectContaining({ name: "image-2.png", mimeType: "image/png" })] });
    expect(call.errorCode).toBeUndefined();
    expect(await received("report", t)).toBe(1);
  });

  it("makes structured content that fails the schema an invalid_tool_output error naming the path, sent once", async () => {
    const t = tag();
    const call = await reportTurn("nonconforming", t);
    expect(call).toMatchObject({ status: "failed", attempts: 1, errorCode: "invalid_tool_output", errorDetails: { path: ["count"] } });
    expect(call.result!.error).toMatch(/^invalid_tool_output: the tool ran and its effect happened, but its result does not match outputSchema: .*count/);
    // A write whose effect happened: not sent again.
    expect(await received("report", t)).toBe(1);
  });

  it("checks a text-only answer as JSON: one that fails the schema is invalid_tool_output naming the path, sent once", async () => {
    const t = tag();
    const call = await reportTurn("text", t);
    expect(call).toMatchObject({ status: "failed", attempts: 1, errorCode: "invalid_tool_output", errorDetails: { path: ["items"] } });
    expect(call.result!.error).toMatch(/^invalid_tool_output: .*items/);
    expect(await received("report", t)).toBe(1);
  });

  it("leaves an isError answer unchecked: an error result with the server's text", async () => {
    const t = tag();
    const call = await reportTurn("error", t);
    expect(call).toMatchObject({ status: "failed", attempts: 1, result: { status: "error", error: "the report is not ready" } });
    expect(call.errorCode).toBeUndefined();
  });

  it("checks a direct call the same way", async () => {
    const id = await createThread({ agent: "remote_shaped" });
    const good = await json("POST", "/v1/tools/shaped__report", { input: { answer: "conforming", tag: tag() }, sessionId: id });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ ok: true, isError: false, result: '{"count":2,"items":["a","b"]}' });
    const t = tag();
    const bad = await json("POST", "/v1/tools/shaped__report", { input: { answer: "nonconforming", tag: t }, sessionId: id });
    expect(bad.body).toMatchObject({ ok: false, isError: true, attempts: 1 });
    expect(bad.body.error).toMatch(/^invalid_tool_output: .*count/);
    // The answer says it in its text; the call's record has the code.
    expect((await json("GET", `/threads/${id}/calls/${bad.body.callId}`)).body).toMatchObject({ status: "failed", errorCode: "invalid_tool_output", errorDetails: { path: ["count"] } });
    expect(await received("report", t)).toBe(1);
  });
});

describe("a server's outputSchemas at listing", () => {
  it("offers a tool whose outputSchema weft cannot compile, unchecked, and says so; refuses an oversized outputSchema", async () => {
    const servers = new RemoteServers(registry.mcpServers ?? {}, () => false);
    await servers.refresh(["shaped"]);
    const offered = servers.definitionsFor("shaped");
    expect(Object.keys(offered).sort()).toEqual(["shaped__report", "shaped__unchecked"]);
    expect(offered.shaped__report!.outputSchema).toEqual(REPORT);
    expect(offered.shaped__unchecked!.outputSchema).toBeUndefined();
    expect(servers.problems()).toEqual([
      { server: "shaped", tool: "unchecked", code: "mcp_protocol_error", reason: expect.stringMatching(/^its outputSchema cannot be compiled, so its results are not checked: invalid_config: tool "shaped__unchecked": outputSchema at #\/properties\/row: .*remote document/) },
      { server: "shaped", tool: "oversized", code: "mcp_protocol_error", reason: `its outputSchema is larger than ${MAX_REMOTE_SCHEMA_CHARS} characters` },
    ]);
  });

  it("the unchecked tool still runs in a thread and answers as before", async () => {
    const id = await createThread({ agent: "remote_shaped" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "u", name: "shaped__unchecked", arguments: { tag: tag() } }] }, { text: "done" }]);
    const [call] = await callsOf(id);
    // Failed once in a CI run under load (status failed, result error): the message says why next time.
    expect(call, JSON.stringify({ errorCode: call?.errorCode, result: call?.result })).toMatchObject({ status: "succeeded", result: { status: "success", result: "unchecked ran" } });
  });

  it("GET /v1/tools lists the outputSchema a remote tool is checked against, and the server's problems", async () => {
    const listed = await json<{ remote: { tools: Array<{ name: string; outputSchema: unknown }>; problems: Array<{ server: string; tool?: string; code: string }> } }>("GET", "/v1/tools");
    expect(listed.status).toBe(200);
    const shaped = listed.body.remote.tools.filter((t) => t.name.startsWith("shaped__"));
    expect(shaped.map((t) => [t.name, t.outputSchema])).toEqual([
      ["shaped__report", REPORT],
      ["shaped__unchecked", null],
    ]);
    expect(listed.body.remote.problems.filter((p) => p.server === "shaped").map((p) => [p.tool, p.code])).toEqual([
      ["unchecked", "mcp_protocol_error"],
      ["oversized", "mcp_protocol_error"],
    ]);
  });
});
