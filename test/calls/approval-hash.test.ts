/**
 * The argsHash a reader of the thread sees is keyed with a secret of the thread's own: it names the
 * arguments an approval is bound to without letting anyone test guesses of a secret in them (the
 * input readers see is redacted). A call stored while argsHash was a plain SHA-256 still approves.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, effectRuns, eventsOf, inThread, json, stubOf } from "../helpers.js";

const SECRET = "sk-live-9f8e7d6c5b4a3210";

/** Plain SHA-256 (hex) of the canonical JSON of `{ amount, label }`: what argsHash was before it was keyed. */
async function plainHash(amount: number, label: string): Promise<string> {
  const text = `{"amount":${amount},"label":${JSON.stringify(label)}}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("argsHash of a call holding a secret", () => {
  it("reveals no hash of the true arguments; approving with it runs the call once, another hash is approval_mismatch", async () => {
    const id = await createThread({ agent: "guarantees", env: { PAY_TOKEN: SECRET } });
    await json("POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500, label: SECRET } }] }, { text: "done" }] });
    await stubOf(id).waitIdle();
    const waiting = (await callsOf(id)).find((c) => c.callId === "pay")! as { status: string; input: unknown; argsHash?: string };
    expect(waiting.status).toBe("awaiting_approval");
    // Readers see the secret redacted, so the hash they are shown must not stand for it either.
    expect(JSON.stringify(waiting.input)).not.toContain(SECRET);
    const shown = waiting.argsHash!;
    expect(shown).toMatch(/^[0-9a-f]{64}$/);
    expect(shown).not.toBe(await plainHash(500, SECRET));
    const asked = (await eventsOf(id)).find((e) => e.type === "tool_call_approval_requested")!;
    expect((asked.data as { argsHash: string }).argsHash).toBe(shown);

    const wrong = await json("POST", `/threads/${id}/calls/pay/approve`, { argsHash: await plainHash(500, SECRET) });
    expect(wrong).toMatchObject({ status: 409, body: { error: { code: "approval_mismatch", details: { path: ["argsHash"] } } } });
    expect((await effectRuns(id, "pay")).runs).toBe(0);

    const approved = await json("POST", `/threads/${id}/calls/pay/approve`, { argsHash: shown });
    expect(approved).toMatchObject({ status: 200, body: { callId: "pay", status: "succeeded" } });
    await stubOf(id).waitIdle();
    expect((await effectRuns(id, "pay")).runs).toBe(1);
  });

  it("a call stored waiting with a plain SHA-256 argsHash (before it was keyed) approves with it and runs its input", async () => {
    const id = await createThread({ agent: "guarantees" });
    const old = { amount: 300, label: "old row" };
    const hash = await plainHash(old.amount, old.label);
    await inThread(id, (instance) => {
      const calls = instance.world.store.calls;
      calls.insert({ callId: "old", toolName: "needs_ok", source: "direct", status: "queued", argsText: JSON.stringify(old), effectKey: `${id}:old` });
      calls.awaitApproval("old", old, hash);
    });
    expect((await callsOf(id)).find((c) => c.callId === "old")).toMatchObject({ status: "awaiting_approval", argsHash: hash });
    const approved = await json("POST", `/threads/${id}/calls/old/approve`, { argsHash: hash });
    expect(approved).toMatchObject({ status: 200, body: { callId: "old", status: "succeeded" } });
    expect(JSON.parse(approved.body.result.result)).toMatchObject({ label: "old row", approvedBy: "tester" });
    expect((await effectRuns(id, "old")).runs).toBe(1);
  });
});
