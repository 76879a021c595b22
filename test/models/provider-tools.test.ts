/**
 * Tools the provider runs itself (`executionMode: "provider"`, here web search): offered to a
 * model of that provider as its provider-defined tool, recorded like any call with the provider's
 * result, replayed in the provider's own wire format in later requests, and never run by weft.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { callsOf, createThread, eventsOf, inThread, json, messagesOf, runTurn, stubOf } from "../helpers.js";

async function searchTurn(spec: string) {
  const key = fakeKey(spec.split(":")[0]!);
  await scriptFake(key, [
    { providerCalls: [{ id: "ws_1", query: "weft runtime", urls: ["https://example.com/weft"] }], toolCalls: [{ id: "p1", name: "person", arguments: '{"name":"Ada","age":36}' }] },
    { text: "Found it." },
  ]);
  const id = await createThread({ agent: "searcher", env: fakeEnv(spec, key) });
  expect((await json("POST", `/threads/${id}/messages`, { content: "search" })).status).toBe(202);
  await stubOf(id).waitIdle();
  return { id, requests: await fakeRequests(key) };
}

const ranLocally = (id: string) => inThread(id, (i: any) => i.store.kv.get("provider_tool_ran_locally"));

describe("provider-executed tools", () => {
  it("openai: web search goes as the provider's tool, is recorded with its result, replayed by reference, never run here", async () => {
    const { id, requests } = await searchTurn("openai:gpt-4.1-mini");
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed", steps: 2 });
    expect(requests).toHaveLength(2);
    const tools = requests[0]!.body.tools as Array<{ type: string; name?: string }>;
    expect(tools.filter((t) => t.type === "web_search")).toHaveLength(1);
    // Anthropic's search is not offered to OpenAI; the local tool goes as a function.
    expect(tools.map((t) => t.name ?? t.type).sort()).toEqual(["person", "web_search"]);

    const calls = await callsOf(id);
    const ws = calls.find((c) => c.callId === "ws_1")!;
    expect(ws).toMatchObject({ toolName: "web_search", source: "model", status: "succeeded", attempts: 0 });
    expect(JSON.parse(ws.result!.result!)).toMatchObject({ action: { type: "search", query: "weft runtime" }, sources: [{ type: "url", url: "https://example.com/weft" }] });
    expect(calls.find((c) => c.callId === "p1")).toMatchObject({ status: "succeeded" });
    expect(await ranLocally(id)).toBeNull();

    // The second request replays the search by its item id and answers only the local call.
    const input = requests[1]!.body.input as Array<{ type?: string; id?: string; call_id?: string }>;
    expect(input.filter((i) => i.type === "item_reference").map((i) => i.id)).toEqual(["ws_1"]);
    expect(input.filter((i) => i.type === "function_call_output").map((i) => i.call_id)).toEqual(["p1"]);
    const finished = (await eventsOf(id)).filter((e) => e.type === "tool_call_finished").map((e) => e.data as { callId: string; providerExecuted?: boolean });
    expect(finished.map((f) => [f.callId, f.providerExecuted ?? false])).toEqual([["ws_1", true], ["p1", false]]);
  });

  it("anthropic: the server tool's call and result go back in the same assistant message; only the local call gets a tool_result", async () => {
    const { id, requests } = await searchTurn("anthropic:claude-sonnet-4-5");
    expect((await json("GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "completed", steps: 2 });
    const tools = requests[0]!.body.tools as Array<{ type?: string; name: string }>;
    expect(tools.find((t) => t.name === "web_search")).toMatchObject({ type: "web_search_20250305" });
    expect(tools.map((t) => t.name).sort()).toEqual(["person", "web_search"]);
    const ws = (await callsOf(id)).find((c) => c.callId === "ws_1")!;
    expect(ws).toMatchObject({ toolName: "claude_search", status: "succeeded" });
    expect(JSON.parse(ws.result!.result!)).toEqual([{ url: "https://example.com/weft", title: "Page at https://example.com/weft", pageAge: null, encryptedContent: "enc:https://example.com/weft", type: "web_search_result" }]);
    expect(await ranLocally(id)).toBeNull();

    const messages = requests[1]!.body.messages as Array<{ role: string; content: Array<{ type: string; id?: string; tool_use_id?: string; input?: unknown }> }>;
    const assistant = messages.find((m) => m.role === "assistant")!;
    expect(assistant.content.map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result", "tool_use"]);
    expect(assistant.content[0]).toMatchObject({ id: "ws_1", input: { query: "weft runtime" } });
    expect(assistant.content[1]).toMatchObject({ tool_use_id: "ws_1" });
    const next = messages[messages.indexOf(assistant) + 1]!;
    expect(next.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)).toEqual(["p1"]);
    // The stored step keeps the provider's call with its result, marked.
    const stored = (await json("GET", `/threads/${id}/messages`)).body.messages.find((m: any) => m.toolCalls)!;
    expect(stored.toolCalls[0]).toMatchObject({ id: "ws_1", name: "claude_search", providerExecuted: true });
  });

  it("a direct call to a provider tool is refused 400 tool_not_callable", async () => {
    const id = await createThread({ agent: "searcher" });
    const res = await json("POST", "/v1/tools/web_search", { input: { query: "x" }, sessionId: id });
    expect(res.status).toBe(400);
    // In the words schedules refuse it with (modelOnlyReason): no model is involved here.
    expect(res.body.error).toMatchObject({ code: "tool_not_callable", message: expect.stringMatching(/executed by the provider .*only the model can call it/) });
    // Refused before anything is stored, as an unknown tool or a bad input is: no failed row in the session.
    expect(await callsOf(id)).toEqual([]);
  });

  it("a plain call to a provider tool (a model that cannot run it) is refused and never runs here", async () => {
    const id = await createThread({ agent: "searcher" });
    await runTurn(id, "search", [{ toolCalls: [{ id: "s1", name: "web_search", arguments: { query: "x" } }] }, { text: "ok" }]);
    const [s1] = await callsOf(id);
    // It cannot run on this host: tool_not_callable, as for any tool weft has no body to run here.
    expect(s1).toMatchObject({ status: "failed", errorCode: "tool_not_callable" });
    expect(s1!.result!.error).toContain("executed by the provider");
    expect(await ranLocally(id)).toBeNull();
    expect((await messagesOf(id)).at(-1)).toMatchObject({ role: "assistant", content: "ok" });
  });
});
