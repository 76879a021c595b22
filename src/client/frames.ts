/**
 * Telling event frames apart: weft's built-in events from a tool's own (`state.emit`).
 * @module
 */
// `.ts` specifiers: the CLI (bin/) loads these files with Node's type stripping, which does not map `.js` to `.ts`.
import { BUILTIN_EVENT_TYPES } from "../events.ts";
import type { BuiltinEventFrame, CustomEventFrame, EventFrame } from "../protocol.js";

/**
 * Narrows `frame` to the built-in event `type`, with that event's `data`. An {@link EventFrame}
 * may also be a tool's own event (`state.emit`: any `type`, `data` unknown), so comparing
 * `frame.type` alone leaves `data` unknown; a tool cannot emit a built-in type, so a frame of one
 * is always weft's.
 * @example
 * if (isEvent(frame, "tool_call_approval_requested")) await weft.approve(threadId, frame.data.callId, { argsHash: frame.data.argsHash });
 */
export function isEvent<K extends BuiltinEventFrame["type"]>(frame: EventFrame, type: K): frame is Extract<BuiltinEventFrame, { type: K }> {
  return frame.type === type;
}

/**
 * Whether `frame` is a tool's own event (`state.emit(type, data)`), not one of weft's: its `type`
 * is none of the built-in names, which `state.emit` refuses.
 * @example
 * if (isEmitted(frame) && frame.type === "cart") renderCart(frame.data);
 */
export function isEmitted(frame: EventFrame): frame is CustomEventFrame {
  return !BUILTIN_EVENT_TYPES.has(frame.type);
}
