/**
 * Frame types of a turn whose model calls one tool and then answers in text, from a fresh
 * thread: shared by the workerd and end-to-end suites so they check the same sequence.
 */
export const ONE_TOOL_TURN_TYPES = [
  "thread_created",
  "message_created",
  "turn_started",
  "model_step",
  "message_created",
  "tool_call_started",
  "tool_call_finished",
  "message_created",
  "model_step",
  "message_created",
  "turn_finished",
] as const;
