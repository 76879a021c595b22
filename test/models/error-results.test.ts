/**
 * A failed call's result reaches the provider marked as an error where the wire format has the
 * mark (Anthropic's `is_error` on a `tool_result`), and only a failed call's: each case runs a real
 * turn against the fake provider and reads the request it received after the calls ran.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, json, stubOf } from "../helpers.js";

/** One turn of `faults` on `spec`: a call that throws and one that succeeds, then an answer; the requests the fake got. */
async function requestsOf(spec: string): Promise<any[]> {
  const key = fakeKey("is-error");
  await scriptFake(key, [
    {
      toolCalls: [
        { id: "call_bad", name: "throws_error", arguments: '{"kind":"error"}' },
        { id: "call_ok", name: "echo_json_schema", arguments: '{"city":"Oslo"}' },
      ],
    },
    { text: "One failed." },
  ]);
  const id = await createThread({ agent: "faults", env: fakeEnv(spec, key) });
  await json("POST", `/threads/${id}/messages`, { content: "Try both." });
  await stubOf(id).waitIdle();
  const thread = (await json("GET", `/threads/${id}`)).body;
  expect(thread.lastTurn, JSON.stringify(thread.lastTurn)).toMatchObject({ status: "completed" });
  const tool = (await json("GET", `/threads/${id}/messages?includeSilent=true&limit=100`)).body.messages.filter((m: { role: string }) => m.role === "tool");
  // The stored history keeps the mark too, for every later request and reader.
  expect(tool.map((m: { toolCallId: string; isError?: boolean }) => [m.toolCallId, m.isError === true])).toEqual([
    ["call_bad", true],
    ["call_ok", false],
  ]);
  return (await fakeRequests(key)).map((r) => r.body);
}

describe("a failed call's result is marked as an error for the provider", () => {
  it("Anthropic: the failed call's tool_result has is_error, the successful one none", async () => {
    const [, after] = await requestsOf("anthropic:claude-sonnet-4-5");
    const results = after.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === "tool_result");
    expect(results.map((b: { tool_use_id: string; is_error?: boolean }) => [b.tool_use_id, b.is_error === true])).toEqual([
      ["call_bad", true],
      ["call_ok", false],
    ]);
    expect(JSON.stringify(results[0].content)).toContain("card declined");
  });

  it("OpenAI Chat Completions and Responses: the error's text is the result (the formats have no mark)", async () => {
    const [, chat] = await requestsOf("openai-chat:gpt-4.1-mini");
    const bad = chat.messages.find((m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === "call_bad");
    expect(JSON.stringify(bad.content)).toContain("card declined");
    const [, responses] = await requestsOf("openai:gpt-4.1-mini");
    const output = responses.input.find((i: { type: string; call_id?: string }) => i.type === "function_call_output" && i.call_id === "call_bad");
    expect(JSON.stringify(output.output)).toContain("card declined");
  });
});
