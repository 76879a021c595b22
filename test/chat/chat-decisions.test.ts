/**
 * A decision a chat client got wrong is refused, never taken as a denial (review 21h): a part whose
 * `approved` was not exactly `true` (the string "true", or missing) denied the call for good with a
 * 200, and a denial naming other arguments than the call holds was applied where an approval gets
 * 409 `approval_mismatch`.
 */
import { expect, it } from "vitest";
import { callsOf, createThread, json, request, runTurn } from "../helpers.js";

const post = (id: string, body: unknown) => request(`/threads/${id}/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function waitingCall(): Promise<{ id: string; argsHash: string }> {
  const id = await createThread();
  await runTurn(id, "Pay", [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "ok" }]);
  const call = (await json("GET", `/threads/${id}/calls/pay`)).body;
  expect(call.status).toBe("awaiting_approval");
  return { id, argsHash: call.argsHash as string };
}

const decide = (approval: Record<string, unknown>) => ({ messages: [{ role: "assistant", parts: [{ type: "tool-needs_ok", toolCallId: "pay", state: "approval-responded", input: { amount: 500 }, approval }] }] });
const statusOf = async (id: string) => (await callsOf(id)).find((c) => c.callId === "pay")!.status;

it("an approval that is not true or false is refused with its path, and the call still waits", async () => {
  const { id, argsHash } = await waitingCall();
  for (const approval of [{ id: `pay:${argsHash}`, approved: "true" }, { id: `pay:${argsHash}` }]) {
    const res = await post(id, decide(approval));
    const body = (await res.json()) as { error?: { code?: string; details?: { path?: unknown[] } } };
    expect([res.status, body.error?.code, body.error?.details?.path]).toEqual([400, "invalid_request", ["messages", 0, "parts", 0, "approval", "approved"]]);
  }
  expect(await statusOf(id)).toBe("awaiting_approval");
});

it("a denial naming other arguments than the call holds is refused as an approval is; the right one denies", async () => {
  const { id, argsHash } = await waitingCall();
  const wrong = await post(id, decide({ id: `pay:${"0".repeat(64)}`, approved: false }));
  expect([wrong.status, ((await wrong.json()) as { error?: { code?: string } }).error?.code]).toEqual([409, "approval_mismatch"]);
  expect(await statusOf(id)).toBe("awaiting_approval");
  const right = await post(id, decide({ id: `pay:${argsHash}`, approved: false }));
  await right.text();
  expect([right.status, await statusOf(id)]).toEqual([200, "denied"]);
});
