/**
 * Conversations with the example agent, through weft/testing: the model is scripted (no network),
 * each turn is posted and awaited, and the calls, approvals, events and answers are read back as
 * typed values. Copy this file to start tests of your own agent (docs/testing.md).
 */
import { describe, expect, it } from "vitest";
import { createTestThread, scripted } from "weft/testing";

describe("the example agent", () => {
  it("looks an order up, and refunds it only once a person approves", async () => {
    const thread = await createTestThread({
      agent: "example",
      model: scripted([
        { text: "Let me check.", toolCalls: [{ id: "look", name: "lookup_order", arguments: { orderId: "A-1001" } }] },
        { toolCalls: [{ id: "refund", name: "refund_order", arguments: { orderId: "A-1001", reason: "arrived broken" } }] },
        { text: "Your blue kettle is refunded." },
      ]),
    });

    const asked = await thread.post("My kettle A-1001 arrived broken, please refund it.");
    // The read ran at once; the refund waits for a person, and nothing was refunded yet.
    expect(asked.status).toBe("waiting");
    expect(asked.calls.map((c) => [c.toolName, c.status])).toEqual([
      ["lookup_order", "succeeded"],
      ["refund_order", "awaiting_approval"],
    ]);
    expect(JSON.parse(asked.calls[0]!.result!.result!)).toMatchObject({ item: "blue kettle", status: "shipped" });
    expect((await thread.pendingApprovals()).map((c) => c.input)).toEqual([{ orderId: "A-1001", reason: "arrived broken" }]);

    const approved = await thread.approve("refund");
    expect(approved.status).toBe("idle");
    expect(approved.turn).toMatchObject({ status: "completed", steps: 3 });
    expect(approved.calls).toEqual([expect.objectContaining({ callId: "refund", status: "succeeded", approvedBy: expect.any(String) })]);
    expect(approved.calls[0]!.result).toMatchObject({ status: "success", result: "Refunded order A-1001 (blue kettle)." });
    expect(approved.text).toBe("Your blue kettle is refunded.");

    const types = (await thread.events()).map((e) => e.type);
    expect(types[0]).toBe("thread_created");
    expect(types).toContain("tool_call_finished");
    expect(types.at(-1)).toBe("turn_finished");
  });

  it("tells the model when a person denies the refund", async () => {
    const thread = await createTestThread({
      agent: "example",
      model: scripted([
        { toolCalls: [{ id: "refund", name: "refund_order", arguments: { orderId: "A-1002", reason: "changed my mind" } }] },
        { text: "The refund was declined." },
      ]),
    });
    expect((await thread.post("Refund A-1002")).waiting.map((c) => c.callId)).toEqual(["refund"]);
    const denied = await thread.deny("refund", "not eligible");
    expect(denied.calls).toEqual([expect.objectContaining({ callId: "refund", status: "denied" })]);
    // The denial is what the model read next, as a tool message.
    const tool = (await thread.messages()).find((m) => m.role === "tool" && m.toolCallId === "refund");
    expect(tool?.content).toContain("not eligible");
    expect(denied.text).toBe("The refund was declined.");
  });

  it("keeps notes across turns (add_note, then list_notes in the next turn)", async () => {
    const thread = await createTestThread({ agent: "example" });
    await thread.post("Remember: milk", {
      script: [{ toolCalls: [{ id: "n1", name: "add_note", arguments: { title: "Milk", body: "two litres" } }] }, { text: "Noted." }],
    });
    const listed = await thread.post("What did I note?", {
      script: [{ toolCalls: [{ id: "l1", name: "list_notes", arguments: {} }] }, { text: "You noted milk." }],
    });
    expect(JSON.parse(listed.calls[0]!.result!.result!)).toEqual([expect.objectContaining({ title: "Milk", body: "two litres" })]);
    expect(listed.text).toBe("You noted milk.");
  });
});
