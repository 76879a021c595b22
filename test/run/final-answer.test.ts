/**
 * A declared output schema: the model is told it, an answer it refuses is sent back once with the
 * path that failed, and refused twice the run fails with `invalid_output` naming the path. An
 * agent's inline side and a prompt called as a tool both hold to theirs.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { createThread, json, messagesOf, runTurn, stubOf } from "../helpers.js";

const GOOD = JSON.stringify({ priority: "high", reasons: ["card declined twice"] });

async function lastTurn(id: string) {
  return (await json("GET", `/threads/${id}`)).body.lastTurn;
}

describe("a final answer with an output schema", () => {
  it("passes as it is when the schema accepts it (a fenced block allowed)", async () => {
    const id = await createThread({ agent: "structured" });
    await runTurn(id, "Grade this ticket.", [{ text: "```json\n" + GOOD + "\n```" }]);
    expect(await lastTurn(id)).toMatchObject({ status: "completed" });
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("is sent back once with the failing path, and the corrected answer completes the turn", async () => {
    const id = await createThread({ agent: "structured" });
    await runTurn(id, "Grade this ticket.", [{ text: JSON.stringify({ priority: "urgent", reasons: [] }) }, { text: GOOD }]);
    expect(await lastTurn(id)).toMatchObject({ status: "completed", steps: 2 });
    const all = (await json("GET", `/threads/${id}/messages?includeSilent=true`)).body.messages as Array<{ role: string; content: string; silent: boolean }>;
    expect(all.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // The correction is silent: the model reads it, message lists leave it out.
    expect(all[2]).toMatchObject({ silent: true });
    expect(all[2]!.content).toContain("at $.priority");
    expect(all[3]!.content).toBe(GOOD);
  });

  it("fails the turn with invalid_output naming the path when the second answer is refused too", async () => {
    const id = await createThread({ agent: "structured" });
    await runTurn(id, "Grade this ticket.", [{ text: "High, because the card was declined." }, { text: JSON.stringify({ priority: "high", reasons: [] }) }]);
    const turn = await lastTurn(id);
    expect(turn).toMatchObject({ status: "failed", errorCode: "invalid_output" });
    expect(turn.error).toContain("at $.reasons");
  });

  it("holds a prompt called as a tool to its own schema: its refused answer becomes the call's error result", async () => {
    const id = await createThread({ agent: "structured" });
    await runTurn(id, "Order two of ORD-17, then grade.", [
      { toolCalls: [{ id: "x1", name: "extract_order", arguments: '{"input":"two of ORD-17"}' }] },
      { text: '{"orderId":"17","quantity":2}' },
      { text: '{"orderId":"ORD-17","quantity":0}' },
      { text: GOOD },
    ]);
    const calls = (await json("GET", `/threads/${id}/calls`)).body.calls as Array<{ callId: string; status: string; result?: { error?: string } }>;
    const call = calls.find((c) => c.callId === "x1")!;
    expect(call.status).toBe("failed");
    expect(call.result?.error).toContain("at $.quantity");
    expect(await lastTurn(id)).toMatchObject({ status: "completed" });
  });

  it("tells the model the schema in its system prompt, in the provider's wire format", async () => {
    const key = fakeKey("final-answer");
    await scriptFake(key, [{ text: GOOD }]);
    const id = await createThread({ agent: "structured", env: fakeEnv("anthropic:claude-sonnet-4-5", key) });
    await json("POST", `/threads/${id}/messages`, { content: "Grade this ticket." });
    await stubOf(id).waitIdle();
    expect(await lastTurn(id)).toMatchObject({ status: "completed" });
    const [request] = await fakeRequests(key);
    const system = JSON.stringify(request!.body.system);
    expect(system).toContain("You grade support tickets.");
    expect(system).toContain('\\"priority\\"');
  });
});
