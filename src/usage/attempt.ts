/**
 * What one model request received before it ended, counted as it streams: the characters of its
 * text, reasoning and call arguments, and the usage if the provider reported any. A request that then fails
 * is recorded from this (src/usage/meter.ts `failed`), so a failure never makes it free.
 * @module
 */
import type { TokenUsage } from "../protocol.js";
import type { ModelStreamPart } from "../models/model.js";

/** Counts one request's stream; `part` is given every part in order. */
export class AttemptTally {
  /** Characters of text, reasoning and call arguments received (only counted: a partial answer is never kept). */
  chars = 0;
  /** The usage the provider reported, if its finish part came. */
  usage: TokenUsage = {};
  /** Calls whose arguments streamed as deltas (their final `tool-call` repeats them). */
  private readonly streamed = new Set<string>();

  part(part: ModelStreamPart): void {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta":
        this.chars += part.delta.length;
        break;
      case "tool-input-delta":
        this.streamed.add(part.id);
        this.chars += part.delta.length;
        break;
      case "tool-call":
        if (!this.streamed.has(part.id)) this.chars += part.toolName.length + String(part.input).length;
        break;
      case "finish":
        this.usage = part.usage;
        break;
    }
  }
}
