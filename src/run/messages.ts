/**
 * Message shapes the turn loop appends.
 * @module
 */
import type { MessageRole, ToolCallRequest } from "../protocol.js";

/** A message the turn appends to the thread's history. */
export interface NewTurnMessage {
  role: MessageRole;
  content: string;
  toolCalls?: ToolCallRequest[];
  toolCallId?: string;
  name?: string;
  silent?: boolean;
  metadata?: Record<string, unknown>;
  /** Nesting depth: 0 for the thread's own conversation, 1+ inside prompts called as tools. */
  depth?: number;
  /** The side that wrote it, in a two-sided agent's conversation. */
  side?: "a" | "b";
}
