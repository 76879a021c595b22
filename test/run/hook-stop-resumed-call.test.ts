/**
 * Review 25b: a call that ran before (a prompt call that suspended while a call inside it waited
 * for a person) runs its tool_call_started hook again as it resumes. A stop cutting that hook
 * records the call `aborted` "before the call ran", although it ran and the write inside it did:
 * enterExecute's own stop check sends such a call to the effect table (afterAbort) instead.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, json, stubOf, until } from "../helpers.js";
import { stuck } from "../fixtures/lib/hooked.js";

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ id, name, arguments: args }] });
const armed = ((globalThis as { __rv25b_hangPayout?: Record<string, boolean> }).__rv25b_hangPayout ??= {});

describe("a stop cutting the tool_call_started hook of a resumed call that ran before", () => {
  it("does not record it aborted as never run: the write inside it ran", async () => {
    const id = await createThread({ agent: "review25b_payer" });
    await json("POST", `/threads/${id}/messages`, {
      content: "pay 500",
      script: [call("p1", "payout", { input: "pay 500" }), call("n_pay", "needs_ok", { amount: 500 }), { text: "paid 500" }, { text: "done" }],
    });
    await stubOf(id).waitIdle();
    expect(Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c.status]))).toEqual({ p1: "parked", n_pay: "awaiting_approval" });
    // From now on the hook of the prompt call hangs: it hangs as p1 resumes after the approval.
    armed[id] = true;
    const approved = await json("POST", `/threads/${id}/calls/n_pay/approve`, {});
    expect(approved.body).toMatchObject({ callId: "n_pay", status: "succeeded" });
    await until(async () => stuck[id]?.hook === "tool_call_started", "p1's hook to hang as it resumes", 20_000);
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await until(async () => (await json("GET", `/threads/${id}`)).body.lastTurn?.status === "stopped", "the turn to end stopped", 15_000);
    const p1 = (await callsOf(id)).find((c) => c.callId === "p1");
    expect({ nestedWriteRuns: (await effectRuns(id, "n_pay")).runs, p1: p1?.status, error: p1?.result?.error }).toEqual({
      nestedWriteRuns: 1,
      // The effect table's "stopped while running" for a reconcilable call (found: the nested run did work), never "aborted before it ran".
      p1: expect.not.stringMatching(/^aborted$/),
      error: expect.not.stringContaining("before the call ran"),
    });
  }, 60_000);
});
