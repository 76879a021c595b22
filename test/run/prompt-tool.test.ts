/**
 * Prompts called as tools: a nested loop one level down, its messages stored with their depth
 * and filtered by `maxDepth`, `promptPath` naming the prompts on the way down, env defaults of the
 * running prompt, and the final text as the tool result.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, json, runTurn } from "../helpers.js";

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ id, name, arguments: args }] });

describe("a prompt called as a tool", () => {
  it("runs a nested loop whose final text is the result; depth, promptPath and env follow the nesting", async () => {
    const id = await createThread({ agent: "nested" });
    await runTurn(id, "summarise this", [
      call("s1", "summarize", { input: "a long text" }),
      call("n1", "inspect_execution"),
      call("n2", "read_env", { name: "LEVEL_PROMPT" }),
      call("n3", "deeper", { word: "why" }),
      call("d1", "inspect_execution"),
      { text: "deep answer" },
      { text: "summary: short" },
      call("t1", "read_env", { name: "LEVEL_PROMPT" }),
      call("t2", "inspect_execution"),
      { text: "done" },
    ]);
    const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
    expect(calls.s1).toMatchObject({ toolName: "summarize", status: "succeeded", result: { status: "success", result: "summary: short" } });
    expect(calls.n3!.result).toEqual({ status: "success", result: "deep answer" });
    const n1 = JSON.parse(calls.n1!.result!.result!);
    const d1 = JSON.parse(calls.d1!.result!.result!);
    const t2 = JSON.parse(calls.t2!.result!.result!);
    expect(n1.promptPath).toEqual(["summarize"]);
    expect(d1.promptPath).toEqual(["summarize", "deeper"]);
    expect(t2.promptPath).toEqual([]);
    expect(new Set([n1.flowId, d1.flowId, t2.flowId]).size).toBe(3);
    // The nested run sees its own conversation: the opening message and its own steps.
    expect(n1.history).toEqual(["user", "assistant"]);
    expect(d1.history).toEqual(["user", "assistant"]);
    // The turn's history never holds the nested messages.
    expect(t2.history).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    // Env: inside summarize its text default answers; in the turn the Worker's secret does, and
    // a secret never leaves the thread unredacted.
    expect(calls.n2!.result!.result).toBe("summarize|text");
    expect(calls.t1!.result!.result).toBe("[redacted]|secret");

    const all = (await json("GET", `/threads/${id}/messages?limit=1000`)).body;
    const top = (await json("GET", `/threads/${id}/messages?limit=1000&maxDepth=0`)).body;
    const one = (await json("GET", `/threads/${id}/messages?limit=1000&maxDepth=1`)).body;
    const depthOf = (m: { depth?: number }) => m.depth ?? 0;
    expect(top.messages.map(depthOf).every((d: number) => d === 0)).toBe(true);
    expect(top.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(top.total).toBe(top.messages.length);
    expect(one.messages.some((m: { depth?: number }) => m.depth === 1)).toBe(true);
    expect(one.messages.some((m: { depth?: number }) => depthOf(m) > 1)).toBe(false);
    expect(one.total).toBe(one.messages.length);
    expect(all.messages.filter((m: { depth?: number }) => m.depth === 2).map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", '{"word":"why","times":1}'],
      ["assistant", ""],
      ["tool", d1Text(calls)],
      ["assistant", "deep answer"],
    ]);
    expect(all.total).toBe(all.messages.length);
    expect(all.messages.find((m: { depth?: number; role: string }) => m.depth === 1 && m.role === "user").content).toBe("a long text");
  });

  it("refuses a bad maxDepth with the offending parameter", async () => {
    const id = await createThread({ agent: "nested" });
    const res = await json("GET", `/threads/${id}/messages?maxDepth=-1`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: ["maxDepth"] } });
  });

  it("a prompt's arguments are validated like any tool's: a bad call never starts the nested loop", async () => {
    const id = await createThread({ agent: "nested" });
    await runTurn(id, "go", [call("s1", "summarize", { text: "wrong key" }), { text: "ok" }]);
    const [s1] = await callsOf(id);
    expect(s1).toMatchObject({ status: "failed", errorCode: "invalid_tool_input" });
    const all = (await json("GET", `/threads/${id}/messages?limit=1000`)).body.messages;
    expect(all.some((m: { depth?: number }) => m.depth)).toBe(false);
  });
});

/** The stored text of call d1's result, as its tool message carries it. */
function d1Text(calls: Record<string, { result?: { result?: string } }>): string {
  return calls.d1!.result!.result!;
}
