/**
 * The scripted model: plays a list of steps (text, tool calls, parallel calls, malformed JSON,
 * unknown names) so turns run with no model API. The thread keeps the steps durably, so a
 * resumed turn continues where it stopped.
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { orderedId } from "../ids.js";
import type { ToolCallRequest } from "../protocol.js";
import type { Model, ModelRequest, ModelStreamPart, ScriptStep } from "./model.js";
import { MODEL_ENV } from "./registry.js";
import { extractiveSummary } from "./summary.js";

/**
 * Context window the scripted model declares, in tokens, so history windows and compaction work
 * the same way they do with a provider (a window defaults to half of it).
 */
export const SCRIPTED_CONTEXT_TOKENS = 8192;

/** Largest stored step in UTF-8 bytes. */
export const MAX_STEP_BYTES = 1024 * 1024;

/** A step with every call's id and argument text fixed, as stored. */
export interface StoredStep {
  text: string;
  toolCalls: ToolCallRequest[];
  /** See {@link ScriptStep.waitFor}. */
  waitFor?: string;
}

/**
 * Fixes ids (`call_<random>`) and argument text (objects become JSON) when steps are stored, so a
 * replay after a restart sends the very same calls.
 * @throws WeftError `invalid_request` naming the step and field for a malformed step.
 */
export function normalizeScript(steps: unknown, path: (string | number)[] = ["script"]): StoredStep[] {
  if (!Array.isArray(steps)) throw new WeftError("invalid_request", `${path.join(".")}: expected an array of steps`, { path });
  return steps.map((raw, i) => {
    const at = [...path, i];
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
      throw new WeftError("invalid_request", `${at.join(".")}: expected { text?, toolCalls? }`, { path: at });
    }
    const step = raw as ScriptStep;
    if (step.text !== undefined && typeof step.text !== "string") {
      throw new WeftError("invalid_request", `${at.join(".")}.text: expected a string`, { path: [...at, "text"] });
    }
    if (step.toolCalls !== undefined && !Array.isArray(step.toolCalls)) {
      throw new WeftError("invalid_request", `${at.join(".")}.toolCalls: expected an array`, { path: [...at, "toolCalls"] });
    }
    if (step.waitFor !== undefined && (typeof step.waitFor !== "string" || step.waitFor === "")) {
      throw new WeftError("invalid_request", `${at.join(".")}.waitFor: expected a non-empty string`, { path: [...at, "waitFor"] });
    }
    const toolCalls = (step.toolCalls ?? []).map((call, j) => {
      const callPath = [...at, "toolCalls", j];
      if (!call || typeof call !== "object" || typeof call.name !== "string" || call.name === "") {
        throw new WeftError("invalid_request", `${callPath.join(".")}.name: expected a tool name`, { path: [...callPath, "name"] });
      }
      if (call.id !== undefined && (typeof call.id !== "string" || call.id === "")) {
        throw new WeftError("invalid_request", `${callPath.join(".")}.id: expected a non-empty string`, { path: [...callPath, "id"] });
      }
      const args = call.arguments;
      return {
        id: call.id ?? orderedId("call", 16),
        name: call.name,
        arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
      };
    });
    const stored: StoredStep = { text: step.text ?? "", toolCalls, ...(step.waitFor !== undefined ? { waitFor: step.waitFor } : {}) };
    // Each step is one SQLite row; keep it far from the 2 MB row limit.
    const json = JSON.stringify(stored);
    if (!fitsBytes(json, MAX_STEP_BYTES)) {
      const bytes = byteLength(json);
      throw new WeftError("payload_too_large", `${at.join(".")}: ${bytes} bytes, over the ${MAX_STEP_BYTES}-byte limit of a step`, { path: at });
    }
    return stored;
  });
}

/**
 * The system notice of a turn that had nothing to play: no model step at all, because no model
 * is configured and the thread's script has no steps left. The one place this wording lives.
 */
export const NOTHING_TO_PLAY =
  "Nothing to play: this thread has no model configured and no scripted steps left, so the turn ended without a reply. " +
  `Set ${MODEL_ENV} to "<provider>:<model id>" (for example "openai:gpt-4.1-mini", with OPENAI_API_KEY in .dev.vars) ` +
  'or name a model in the agent, or post the message with a "script" of model steps. See docs/configuration.md.';

/** Where the scripted model takes its steps from: the thread's `script` table. */
export interface ScriptSource {
  /**
   * Takes the next unplayed step (marking it played), or undefined when the script ran out. With
   * `ready`, a next step it refuses stays unplayed and null is answered (a held step).
   */
  next(ready?: (step: StoredStep) => boolean): StoredStep | null | undefined;
}

/** The scripted model's id, which names no provider (a provider's model of that name is another model). */
export const SCRIPTED_MODEL_ID = "scripted";

/**
 * Creates the scripted model over a source of stored steps. It streams each step the way a
 * provider would (text, then each call's arguments, then `finish`); an exhausted script finishes
 * with reason `end` and nothing else, which ends the turn.
 */
export function createScriptedModel(source: ScriptSource): Model {
  return {
    id: SCRIPTED_MODEL_ID,
    wire: "generic",
    contextTokens: SCRIPTED_CONTEXT_TOKENS,
    summarize: async (input) => extractiveSummary(input),
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
      const newest = request.messages.at(-1)?.content ?? "";
      const step = source.next((s) => s.waitFor === undefined || newest.includes(s.waitFor));
      if (step === null) {
        // Held (`waitFor`): this request gets an empty reply, which ends the turn.
        yield { type: "finish", finishReason: "stop", usage: {} };
        return;
      }
      if (!step) {
        yield { type: "finish", finishReason: "end", usage: {} };
        return;
      }
      if (step.text !== "") yield { type: "text-delta", delta: step.text };
      for (const call of step.toolCalls) {
        yield { type: "tool-input-start", id: call.id, toolName: call.name };
        if (call.arguments !== "") yield { type: "tool-input-delta", id: call.id, delta: call.arguments };
        yield { type: "tool-call", id: call.id, toolName: call.name, input: call.arguments };
      }
      yield { type: "finish", finishReason: step.toolCalls.length > 0 ? "tool-calls" : "stop", usage: {} };
    },
  };
}
