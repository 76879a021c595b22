/**
 * An eval suite for the example agents (agents/agents/example.ts and support_desk.ts), run with
 * `npm run eval -- evals/example`. The `scripted` candidate plays each case's `script` on weft's
 * scripted model, so the suite runs offline; add a candidate with a `model` (its key given as
 * `env: { OPENAI_API_KEY: { fromEnv: "OPENAI_API_KEY" } }`: the runtime weft eval starts does
 * not read .dev.vars) to judge a real model on the same cases. Every case runs on a fresh dry-run thread:
 * `add_note` is answered by its `dryRunResult` and saves nothing.
 */

/** A custom scorer: the write was stubbed, never run (the dry-run promise). */
function noteNotSaved(t) {
  const call = t.calls.find((c) => c.toolName === "add_note");
  const result = call?.result?.result ?? "";
  return { pass: result.startsWith("Dry run:"), detail: `add_note answered ${JSON.stringify(result)}` };
}

/** A custom scorer: the refund was approved (by the case's `approvals`) and then stubbed, never made. */
function refundApprovedNotMade(t) {
  const call = t.calls.find((c) => c.toolName === "refund_order");
  const pass = call?.status === "succeeded" && call.approvedBy !== undefined && call.stubbed === true;
  return { pass, detail: `refund_order ${call?.status ?? "never called"}, approvedBy ${call?.approvedBy ?? "nobody"}, stubbed ${call?.stubbed ?? false}` };
}

/** A custom scorer: the order the model looked up was found (a read runs for real). */
function orderFound(t) {
  const call = t.calls.find((c) => c.toolName === "lookup_order");
  return { pass: call?.status === "succeeded", detail: `lookup_order ${call?.status ?? "never called"}: ${call?.result?.error ?? ""}` };
}

export default {
  name: "example",
  candidates: [{ name: "scripted", agent: "example" }],
  threshold: 1,
  concurrency: 3,
  scorers: { noteNotSaved, orderFound, refundApprovedNotMade },
  cases: [
    {
      id: "time",
      messages: ["What day is it today?"],
      asOf: "2026-03-14T09:26:53Z",
      script: [{ toolCalls: [{ id: "now", name: "get_current_time", arguments: {} }] }, { text: "Today is the day the clock says." }],
      expect: { toolCalls: [{ name: "get_current_time", arguments: {} }], trajectory: ["get_current_time"], answer: { contains: "Today" } },
    },
    {
      id: "remember",
      messages: ["Remember that the meeting moved to Friday."],
      script: [
        { toolCalls: [{ id: "save", name: "add_note", arguments: { title: "Meeting", body: "Moved to Friday" } }] },
        { text: "Noted: the meeting is on Friday." },
      ],
      expect: { toolCalls: [{ name: "add_note", arguments: { title: "Meeting", body: "Moved to Friday" } }], answer: { regex: "Friday" }, custom: ["noteNotSaved"] },
    },
    {
      id: "dice-json",
      messages: ["Roll two dice and answer in JSON."],
      script: [{ text: '{"dice": 2, "note": "I would roll them with roll_dice."}' }],
      expect: { toolCalls: [], answer: { schema: { type: "object", required: ["dice"], properties: { dice: { type: "integer", minimum: 1 } } } } },
    },
    {
      id: "order",
      messages: ["Where is my order A-1002?"],
      agent: "example",
      script: [
        { toolCalls: [{ id: "look", name: "lookup_order", arguments: { orderId: "A-1002" } }] },
        { text: "A-1002 is still being packed." },
      ],
      expect: { trajectory: ["lookup_order"], toolCalls: [{ name: "lookup_order", arguments: { orderId: "A-1002" } }], custom: ["orderFound"] },
    },
    {
      // A refund needs a person's approval: the eval approves it as the thread's owner would, and
      // the dry run answers it with a stub, so no money moves.
      id: "refund",
      messages: ["Please refund order A-1001, it arrived broken."],
      approvals: "approve",
      script: [
        { toolCalls: [{ id: "refund", name: "refund_order", arguments: { orderId: "A-1001", reason: "arrived broken" } }] },
        { text: "Your refund for A-1001 is on its way." },
      ],
      expect: { toolCalls: [{ name: "refund_order", arguments: { orderId: "A-1001", reason: "arrived broken" } }], custom: ["refundApprovedNotMade"] },
    },
    {
      // A follow-up that only makes sense with the turn before it ("that order"): the thread
      // starts from that conversation, and only this message's calls are judged.
      id: "follow-up",
      history: [
        { role: "user", content: "Where is my order A-1002?" },
        { role: "assistant", content: "", toolCalls: [{ id: "look", name: "lookup_order", arguments: '{"orderId":"A-1002"}' }] },
        { role: "tool", toolCallId: "look", content: '{"orderId":"A-1002","status":"packing"}' },
        { role: "assistant", content: "A-1002 is still being packed." },
      ],
      messages: ["Check that order again, please."],
      script: [{ toolCalls: [{ id: "again", name: "lookup_order", arguments: { orderId: "A-1002" } }] }, { text: "Still being packed." }],
      expect: { toolCalls: [{ name: "lookup_order", arguments: { orderId: "A-1002" } }], trajectory: ["lookup_order"] },
    },
  ],
};
