/**
 * `EventFrame` holds a tool's own events beside weft's (any `type`, `data` unknown), so comparing
 * `frame.type` alone leaves `data` unknown in TypeScript; `isEvent` narrows a frame to one
 * built-in event, `data` typed (the type check of this file is part of `npm run typecheck`).
 */
import { expect, expectTypeOf, it } from "vitest";
import { type EventFrame, isEvent } from "weft/client";

it("narrows a frame to a built-in event by type, and tells a tool's own event apart", () => {
  const frames: EventFrame[] = [
    { seq: 1, type: "tool_call_approval_requested", data: { callId: "c1", toolName: "book_table", input: {}, argsHash: "h1" }, at: "2026-01-01T00:00:00.000Z" },
    { seq: 2, type: "progress", data: { done: 1 }, at: "2026-01-01T00:00:00.000Z" },
  ];
  const asked = frames.filter((f) => isEvent(f, "tool_call_approval_requested"));
  expect(asked.map((f) => [f.data.callId, f.data.argsHash])).toEqual([["c1", "h1"]]);
  expect(frames.filter((f) => isEvent(f, "turn_finished"))).toEqual([]);
  const frame = frames[0]!;
  if (isEvent(frame, "tool_call_approval_requested")) expectTypeOf(frame.data.argsHash).toEqualTypeOf<string>();
});
