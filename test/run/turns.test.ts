import { describe, expect, it } from "vitest";
import { NOTHING_TO_PLAY } from "../../src/models/scripted.js";
import { createThread, eventsOf, json, messagesOf, runTurn, stubOf } from "../helpers.js";

type Call = { callId: string; toolName: string; status: string; result: { status: string; result?: string; error?: string } };

async function calls(threadId: string): Promise<Call[]> {
  return (await json<{ calls: Call[] }>("GET", `/threads/${threadId}/calls`)).body.calls;
}

describe("model turns through the dispatch pipeline", () => {
  it("turns malformed JSON arguments into an error result and goes on with the turn", async () => {
    const id = await createThread();
    await runTurn(id, "hi", [
      { toolCalls: [{ id: "c1", name: "person", arguments: '{"name" "x"}' }] },
      { toolCalls: [{ id: "c2", name: "person", arguments: { name: "Ada", age: 36 } }] },
      { text: "done" },
    ]);
    const [bad, good] = await calls(id);
    expect(bad!.status).toBe("failed");
    expect(bad!.result.error).toMatch(/^invalid_tool_input: arguments are not valid JSON/);
    expect(bad!.result.error).toContain('{"name" "x"}');
    expect(good!.status).toBe("succeeded");
    expect(JSON.parse(good!.result.result!)).toEqual({ name: "Ada", age: 36 });
    const messages = (await json("GET", `/threads/${id}/messages?limit=50`)).body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(messages.at(-1).content).toBe("done");
  });

  it("names the failing path when a value has the wrong type, and never runs execute", async () => {
    const id = await createThread();
    await runTurn(id, "hi", [{ toolCalls: [{ id: "c1", name: "person", arguments: { name: "x", age: "3" } }] }]);
    const [call] = await calls(id);
    expect(call!.result.error).toBe("invalid_tool_input: age: expected number, received string");
    const events = await eventsOf(id);
    expect(events.filter((e) => e.type === "tool_call_started")).toHaveLength(0);
    expect(events.filter((e) => e.type === "tool_call_finished")).toHaveLength(1);
  });

  it("carries structured issues (array paths) on the call record and the tool_call_finished event", async () => {
    const id = await createThread();
    await runTurn(id, "hi", [{ toolCalls: [{ id: "c1", name: "echo_json_schema", arguments: { city: "", days: 1.5 } }] }, { text: "ok" }]);
    const [call] = (await json<{ calls: Array<Call & { errorCode?: string; errorDetails?: { issues: unknown[] } }> }>("GET", `/threads/${id}/calls`)).body.calls;
    const issues = [
      { path: ["city"], keyword: "minLength", message: expect.stringMatching(/^city: /) },
      { path: ["days"], keyword: "type", message: "days: expected integer, received number" },
    ];
    expect(call).toMatchObject({ status: "failed", errorCode: "invalid_tool_input", errorDetails: { issues: expect.arrayContaining(issues) } });
    expect(call!.errorDetails!.issues).toHaveLength(2);
    const finished = (await eventsOf(id)).find((e) => e.type === "tool_call_finished");
    expect(finished!.data).toMatchObject({ errorCode: "invalid_tool_input", errorDetails: { issues: expect.arrayContaining(issues) } });
  });

  it("answers an unknown tool name with an error that lists the valid names", async () => {
    const id = await createThread();
    await runTurn(id, "hi", [
      { toolCalls: [{ id: "c1", name: "no_such_tool", arguments: {} }] },
      { toolCalls: [{ id: "c2", name: "person", arguments: { name: "a", age: 1 } }] },
    ]);
    const [unknown, next] = await calls(id);
    expect(unknown!.result.error).toMatch(/^unknown_tool: unknown tool "no_such_tool"; available tools: .*person/);
    expect(next!.status).toBe("succeeded");
  });

  it("says which agent or prompt to list a project tool in when its place does not offer it", async () => {
    const id = await createThread({ agent: "catalog_side_b" });
    // catalog_a (side a) lists only inspect_execution; person is a tool of the project.
    await runTurn(id, "hi", [{ toolCalls: [{ id: "c1", name: "person", arguments: { name: "a", age: 1 } }] }, { text: "ok" }]);
    const [call] = await calls(id);
    expect(call!.result.error).toMatch(/^unknown_tool: unknown tool "person"; available tools: inspect_execution; "person" is in the project, but prompt "catalog_a" does not offer it: add it to the tools of prompt "catalog_a"$/);

    // An agent with no tools list offers every tool of agents/tools/ and no prompt: adding a list narrows it.
    const plain = await createThread();
    await runTurn(plain, "hi", [{ toolCalls: [{ id: "c2", name: "catalog_a", arguments: {} }] }, { text: "ok" }]);
    const [prompt] = await calls(plain);
    expect(prompt!.result.error).toMatch(/; "catalog_a" is in the project, but agent "default" lists no tools, so it offers only those of agents\/tools\/: give it a tools list with every name it should offer, this one among them$/);
  });

  it.each([
    ["error", "card declined"],
    ["string", "x"],
    ["object", '{"code":7}'],
    ["undefined", "undefined"],
  ])("turns a thrown %s into a non-empty message", async (kind, fragment) => {
    const id = await createThread();
    await runTurn(id, "hi", [{ toolCalls: [{ id: "c1", name: "throws_error", arguments: { kind } }] }, { text: "still here" }]);
    const [call] = await calls(id);
    expect(call!.status).toBe("failed");
    expect(call!.result.error!.length).toBeGreaterThan(0);
    expect(call!.result.error).toContain(fragment);
    expect(call!.result.error).not.toMatch(/\[object Object\]|^\{\}$/);
    const info = (await json("GET", `/threads/${id}`)).body;
    expect(info.lastTurn.status).toBe("completed");
  });

  it("runs several calls of one step in order and records each result once", async () => {
    const id = await createThread();
    await runTurn(id, "hi", [
      {
        toolCalls: [
          { id: "p1", name: "record_call", arguments: { n: 1 } },
          { id: "p2", name: "record_call", arguments: { n: 2 } },
        ],
      },
    ]);
    const events = await eventsOf(id);
    const order = events.filter((e) => e.type.startsWith("tool_call")).map((e) => `${e.type}:${(e.data as { callId: string }).callId}`);
    expect(order).toEqual(["tool_call_started:p1", "tool_call_finished:p1", "tool_call_started:p2", "tool_call_finished:p2"]);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("queues a message posted while a turn runs for the next turn", async () => {
    const id = await createThread();
    const first = await json("POST", `/threads/${id}/messages`, {
      content: "one",
      script: [{ toolCalls: [{ id: "s1", name: "slow_read", arguments: { ms: 200 } }] }, { text: "first done" }],
    });
    expect(first.body.queued).toBe(false);
    const second = await json("POST", `/threads/${id}/messages`, {
      content: "two",
      script: [{ text: "second done" }],
    });
    expect(second.body.queued).toBe(true);
    await stubOf(id).waitIdle();
    const messages = (await json("GET", `/threads/${id}/messages?limit=50`)).body.messages;
    expect(messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`)).toEqual([
      "user:one",
      "assistant:",
      "tool:waited 200ms",
      "assistant:first done",
      "user:two",
      "assistant:second done",
    ]);
    expect((await calls(id)).length).toBe(1);
  });
});

describe("call ids from the model", () => {
  it("never lets a reused id inherit another call's result, across turns or within a step", async () => {
    const id = await createThread({ agent: "faults" });
    await runTurn(id, "one", [{ toolCalls: [{ id: "call_1", name: "record_call", arguments: { n: 1 } }] }]);
    await runTurn(id, "two", [
      { toolCalls: [{ id: "call_1", name: "record_call", arguments: { n: 2 } }, { id: "call_1", name: "record_call", arguments: { n: 3 } }] },
    ]);
    const all = await calls(id);
    expect(all.map((c) => `${c.callId}=${c.result.result}`)).toEqual(['call_1={"n":1}', 'call_1_2={"n":2}', 'call_1_3={"n":3}']);
    const tools = (await json("GET", `/threads/${id}/messages?limit=50`)).body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(tools.map((m: { toolCallId: string; content: string }) => `${m.toolCallId}=${m.content}`)).toEqual([
      'call_1={"n":1}',
      'call_1_2={"n":2}',
      'call_1_3={"n":3}',
    ]);
  });

  it("says why a turn ended at maxSteps", async () => {
    const id = await createThread({ agent: "faults" });
    const steps = Array.from({ length: 30 }, (_, i) => ({ toolCalls: [{ id: `s${i}`, name: "person", arguments: { name: "a", age: i } }] }));
    await runTurn(id, "loop", steps);
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn).toMatchObject({ status: "stopped", steps: 25, error: "reached the agent's maxSteps (25) model steps" });
  });
});

describe("a turn with nothing to play", () => {
  it("ends with a system notice saying so and how to configure a model, not silently", async () => {
    const id = await createThread();
    await runTurn(id, "hi", []);
    const messages = await messagesOf(id);
    expect(messages.map((m) => m.role)).toEqual(["user", "system"]);
    expect(messages[1]!.content).toBe(NOTHING_TO_PLAY);
    expect(NOTHING_TO_PLAY).toMatch(/no model configured/);
    expect(NOTHING_TO_PLAY).toMatch(/docs\/configuration\.md/);
    const finished = (await eventsOf(id)).filter((e) => e.type === "turn_finished");
    expect(finished.map((e) => e.data)).toMatchObject([{ status: "completed", steps: 0 }]);
  });

  it("stays quiet when the script ran out after steps were played", async () => {
    const id = await createThread();
    await runTurn(id, "hi", [{ toolCalls: [{ name: "person", arguments: { name: "a", age: 1 } }] }]);
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });
});
