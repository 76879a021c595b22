/**
 * What one model request received before it ended, counted as it streams: its text, reasoning and
 * call arguments at weft's estimate of their tokens, and the usage if the provider reported any. A request that then fails
 * is recorded from this (src/usage/meter.ts `failed`), so a failure never makes it free.
 * @module
 */
import type { TokenUsage } from "../protocol.js";
import type { ModelStreamPart } from "../models/model.js";
import { quarterTokens } from "../run/window.js";

/** Counts one request's stream; `part` is given every part in order. */
export class AttemptTally {
  /** Text, reasoning and call arguments received, in quarter tokens by script (`quarterTokens`; only counted: a partial answer is never kept). */
  quarters = 0;
  /** The usage the provider reported, if its finish part came. */
  usage: TokenUsage = {};
  /** Calls whose arguments streamed as deltas (their final `tool-call` repeats them). */
  private readonly streamed = new Set<string>();

  part(part: ModelStreamPart): void {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta":
        this.quarters += quarterTokens(part.delta);
        break;
      case "tool-input-delta":
        this.streamed.add(part.id);
        this.quarters += quarterTokens(part.delta);
        break;
      case "tool-call":
        if (!this.streamed.has(part.id)) this.quarters += quarterTokens(part.toolName) + quarterTokens(String(part.input));
        break;
      case "finish":
        this.usage = part.usage;
        break;
    }
  }
}
