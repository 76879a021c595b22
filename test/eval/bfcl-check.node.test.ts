import { describe, expect, it } from "vitest";
import { checkAdvertised, checkCall, checkIrrelevance, checkStream, locateTurn } from "../../scripts/bfcl/check.mjs";

// Frames shaped like a real weft turn (recorded from `wrangler dev`), so the checks can be
// shown to fail on each kind of disagreement, not only to pass.
type F = { seq: number; type: string; data: any; at: string };
const at = "2026-01-01T00:00:00.000Z";

function turnFrames(calls: Array<{ id: string; started?: number; finish: any }>, extra: (frames: F[]) => void = () => {}): F[] {
  const frames: F[] = [];
  const push = (type: string, data: any) => frames.push({ seq: frames.length + 1, type, data, at });
  push("thread_created", { threadId: "t", agentId: "bfcl" });
  push("message_created", { message: { id: 1, role: "user", content: "q" } });
  push("turn_started", { turnId: "turn_1" });
  push("model_step", { turnId: "turn_1", step: 1, text: "", toolCalls: calls.map((c) => ({ id: c.id, name: "f_x", arguments: "{}" })) });
  for (const c of calls) {
    for (let i = 0; i < (c.started ?? 0); i++) push("tool_call_started", { callId: c.id, toolName: "f_x", source: "model", input: c.finish.input });
    push("tool_call_finished", { callId: c.id, toolName: "f_x", source: "model", ...c.finish });
  }
  extra(frames);
  push("model_step", { turnId: "turn_1", step: 2, text: "Done.", toolCalls: [] });
  push("message_created", { message: { id: 2, role: "assistant", content: "Done." } });
  push("turn_finished", { turnId: "turn_1", status: "completed", steps: 2 });
  return frames;
}

const toOriginal = new Map([["f_x", "f.x"]]);
const expected = { age: 3, s: "dd" };
const ok = { status: "succeeded", isError: false, attempts: 1, result: JSON.stringify(expected), input: expected };
const okRecord = { callId: "c1", status: "succeeded", attempts: 1, input: expected, result: { status: "success", result: JSON.stringify(expected) } };
// The prose names paths no check may read: only errorDetails.issues count.
const issues = [
  { path: ["age"], message: "age: expected number, received string", keyword: "type" },
  { path: ["s"], message: "s: expected string, received number", keyword: "type" },
];
const refused = {
  status: "failed",
  isError: true,
  attempts: 0,
  error: "invalid_tool_input: decoy: prose is not read",
  errorCode: "invalid_tool_input",
  errorDetails: { path: ["age"], issues },
};
const refusedRecord = { callId: "c1", status: "failed", attempts: 0, result: { status: "error", error: refused.error }, errorCode: "invalid_tool_input", errorDetails: refused.errorDetails };
const valid = { id: "c1", toolName: "f_x", originalName: "f.x", args: { age: 3 }, kind: "valid" as const, expected };
const breaking = { id: "c1", toolName: "f_x", originalName: "f.x", args: {}, kind: "breaking" as const, referencePaths: [["age"]] };
const variant = { id: "c1", toolName: "f_x", originalName: "f.x", args: {}, kind: "variant" as const, argument: "s", path: ["s"], variant: "wrong_type" };

function judge(spec: any, frames: F[], records: any[]) {
  const turn = locateTurn(frames, 0);
  if (typeof turn === "string") return turn;
  return checkStream(frames) ?? checkCall(spec, 0, turn, frames, records, toOriginal);
}

describe("bfcl checks", () => {
  it("accept a valid call executed once with the expected arguments", () => {
    expect(judge(valid, turnFrames([{ id: "c1", started: 1, finish: ok }]), [okRecord])).toBeNull();
  });

  it("fail on a dropped key, a second execution, a retry or a missing record", () => {
    const dropped = { ...ok, result: JSON.stringify({ age: 3 }) };
    expect(judge(valid, turnFrames([{ id: "c1", started: 1, finish: dropped }]), [okRecord])).toMatch(/executed with/);
    expect(judge(valid, turnFrames([{ id: "c1", started: 2, finish: ok }]), [okRecord])).toMatch(/2 tool_call_started/);
    expect(judge(valid, turnFrames([{ id: "c1", started: 1, finish: { ...ok, attempts: 2 } }]), [okRecord])).toMatch(/attempts 2/);
    expect(judge(valid, turnFrames([{ id: "c1", started: 1, finish: ok }]), [])).toMatch(/no record/);
    expect(judge(valid, turnFrames([{ id: "c1", started: 1, finish: refused }]), [okRecord])).toMatch(/refused or failed/);
  });

  it("fail when the tool name does not map back to the BFCL function", () => {
    expect(judge({ ...valid, originalName: "f_x" }, turnFrames([{ id: "c1", started: 1, finish: ok }]), [okRecord])).toMatch(/map back/);
  });

  it("accept a refusal that names the faulted path, and nothing else", () => {
    const frames = turnFrames([{ id: "c1", finish: refused }]);
    expect(judge(breaking, frames, [refusedRecord])).toBeNull();
    expect(judge(variant, frames, [refusedRecord])).toBeNull();
    expect(judge({ ...breaking, referencePaths: [["other"]] }, frames, [refusedRecord])).toMatch(/the reference faults/);
    expect(judge({ ...variant, argument: "other", path: ["other"] }, frames, [refusedRecord])).toMatch(/not other/);
    expect(judge({ ...breaking, referencePaths: [["decoy"]] }, frames, [refusedRecord])).toMatch(/the reference faults/);
  });

  it("read refusal paths only from structured issues, the same on the event and the record", () => {
    const prose = { ...refused, errorDetails: undefined };
    expect(judge(breaking, turnFrames([{ id: "c1", finish: prose }]), [refusedRecord])).toMatch(/no errorDetails\.issues/);
    const stringPaths = { ...refused, errorDetails: { issues: [{ path: "age", message: "m" }] } };
    expect(judge(breaking, turnFrames([{ id: "c1", finish: stringPaths }]), [refusedRecord])).toMatch(/no errorDetails\.issues/);
    const otherRecord = { ...refusedRecord, errorDetails: { issues: [issues[1]] } };
    expect(judge(breaking, turnFrames([{ id: "c1", finish: refused }]), [otherRecord])).toMatch(/differ from the event's/);
  });

  it("judge an offered tool advertised only when the model's list shows it as offered", () => {
    const tool = { name: "f_x", description: "d", parameters: { type: "object", properties: { a: { type: "integer", default: "x" } } } };
    expect(checkAdvertised(tool, { tools: [{ name: "f_x", description: "d", inputSchema: tool.parameters }], unavailableTools: [] })).toBeNull();
    expect(checkAdvertised(tool, { tools: [], unavailableTools: [{ name: "f_x", reason: "invalid_config: x" }] })).toMatch(/unavailable: invalid_config/);
    expect(checkAdvertised(tool, { tools: [], unavailableTools: [] })).toMatch(/missing/);
    expect(checkAdvertised(tool, { tools: [{ name: "f_x", description: "d", inputSchema: { type: "object" } }], unavailableTools: [] })).toMatch(/differs/);
  });

  it("fail when a refused call started, ran, or was refused for another reason", () => {
    expect(judge(breaking, turnFrames([{ id: "c1", started: 1, finish: refused }]), [refusedRecord])).toMatch(/tool_call_started appeared/);
    expect(judge(breaking, turnFrames([{ id: "c1", finish: { ...refused, attempts: 1 } }]), [refusedRecord])).toMatch(/attempts/);
    expect(judge(breaking, turnFrames([{ id: "c1", started: 1, finish: ok }]), [okRecord])).toMatch(/tool_call_started appeared/);
    expect(judge(breaking, turnFrames([{ id: "c1", finish: { ...refused, errorCode: "invalid_config" } }]), [refusedRecord])).toMatch(/without invalid_tool_input/);
  });

  it("fail on a gap in seq and on a call finished outside its turn", () => {
    const frames = turnFrames([{ id: "c1", started: 1, finish: ok }]);
    const gap = frames.map((f, i) => (i >= 5 ? { ...f, seq: f.seq + 1 } : f));
    expect(checkStream(gap)).toMatch(/gap/);
    const late = turnFrames([]);
    late.push({ seq: late.length + 1, type: "tool_call_finished", data: { callId: "c1", toolName: "f_x", ...ok }, at });
    late.splice(3, 1, { ...late[3]!, data: { ...late[3]!.data, toolCalls: [{ id: "c1", name: "f_x" }] } });
    expect(judge(valid, late, [okRecord])).toMatch(/not between/);
  });

  it("judge irrelevance turns: text only, no tool events", () => {
    const clean = turnFrames([]);
    const turn = locateTurn(clean, 0);
    if (typeof turn === "string") throw new Error(turn);
    expect(checkIrrelevance(turn, clean, [])).toBeNull();
    const dirty = turnFrames([{ id: "c1", started: 1, finish: ok }]);
    const dirtyTurn = locateTurn(dirty, 0);
    if (typeof dirtyTurn === "string") throw new Error(dirtyTurn);
    expect(checkIrrelevance(dirtyTurn, dirty, [])).toMatch(/tool call events/);
  });
});
