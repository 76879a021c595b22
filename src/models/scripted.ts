/**
 * The scripted model: plays a list of steps (text, tool calls, parallel calls, malformed JSON,
 * unknown names, text streamed in paced pieces) so turns run with no model API. The thread keeps
 * the steps durably, so a resumed turn continues where it stopped; a paced step stays stored
 * until its stream ends, so a turn resumed after a restart mid-stream plays it again.
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

/**
 * Longest `chunkDelayMs` of a step, in milliseconds: half the default idle deadline of a model
 * request (`WEFT_MODEL_IDLE_MS`, 2 minutes), which a longer wait between parts would pass.
 */
export const MAX_CHUNK_DELAY_MS = 60_000;

/** A step with every call's id and argument text fixed, as stored. */
export interface StoredStep {
  text: string;
  toolCalls: ToolCallRequest[];
  /** See {@link ScriptStep.waitFor}. */
  waitFor?: string;
  /**
   * The lengths, in UTF-16 units, of the pieces `text` streams in ({@link ScriptStep.chunks}):
   * the text is stored once, so pieces add only their lengths to the step's bytes.
   */
  chunkLengths?: number[];
  /** See {@link ScriptStep.chunkDelayMs}; absent for no wait. */
  chunkDelayMs?: number;
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
    const chunks = chunksOf(step, at);
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
    const stored: StoredStep = {
      text: chunks ? chunks.join("") : (step.text ?? ""),
      toolCalls,
      ...(step.waitFor !== undefined ? { waitFor: step.waitFor } : {}),
      ...(chunks ? { chunkLengths: chunks.map((c) => c.length) } : {}),
      ...(step.chunkDelayMs ? { chunkDelayMs: step.chunkDelayMs } : {}),
    };
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
 * A step's `chunks`, checked together with its `chunkDelayMs`; undefined when it has none.
 * @throws WeftError `invalid_request` naming the field (and the piece) at fault.
 */
function chunksOf(step: ScriptStep, at: (string | number)[]): string[] | undefined {
  const fail = (field: (string | number)[], what: string): never => {
    const path = [...at, ...field];
    throw new WeftError("invalid_request", `${path.join(".")}: ${what}`, { path });
  };
  const { chunks, chunkDelayMs } = step as { chunks?: unknown; chunkDelayMs?: unknown };
  if (chunkDelayMs !== undefined) {
    if (chunks === undefined) fail(["chunkDelayMs"], "paces a step's chunks; give its text as chunks");
    if (typeof chunkDelayMs !== "number" || !Number.isInteger(chunkDelayMs) || chunkDelayMs < 0 || chunkDelayMs > MAX_CHUNK_DELAY_MS) {
      fail(["chunkDelayMs"], `expected an integer from 0 to ${MAX_CHUNK_DELAY_MS} (milliseconds)`);
    }
  }
  if (chunks === undefined) return undefined;
  if (!Array.isArray(chunks)) return fail(["chunks"], "expected an array of strings (the text in the pieces it streams in)");
  if (step.text !== undefined) fail(["chunks"], "give text or chunks, not both (chunks are the text in pieces)");
  for (const [i, piece] of chunks.entries()) if (typeof piece !== "string") fail(["chunks", i], "expected a string");
  return chunks as string[];
}

/** The pieces a stored step's text streams in: the whole text as one when it was not given in chunks. */
function piecesOf(step: StoredStep): string[] {
  if (!step.chunkLengths) return [step.text];
  let from = 0;
  return step.chunkLengths.map((length) => step.text.slice(from, (from += length)));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it fires (a stop must not wait out a pace). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
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
  /**
   * The stream of a step `next` answered ended: whole, or cut by a stop or a deadline. A source
   * may keep a paced step (one with `chunkDelayMs`) unplayed until then, so that a restart
   * mid-stream, which ends nothing, plays it again from its first piece.
   */
  ended?(step: StoredStep): void;
}

/** The scripted model's id, which names no provider (a provider's model of that name is another model). */
export const SCRIPTED_MODEL_ID = "scripted";

/**
 * Creates the scripted model over a source of stored steps. It streams each step the way a
 * provider would (text, in its pieces when given in chunks, then each call's arguments, then
 * `finish`); an exhausted script finishes with reason `end` and nothing else, which ends the
 * turn. A paced step throws the request signal's reason as soon as it fires.
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
      try {
        for (const piece of piecesOf(step)) {
          if (piece !== "") yield { type: "text-delta", delta: piece };
          if (!step.chunkDelayMs) continue;
          await pause(step.chunkDelayMs, request.signal);
          // The wait shows as time passed: weft looks at its coalescing window only when a part
          // comes, so without this part the piece would wait for the next one to be sent.
          yield { type: "text-delta", delta: "" };
        }
        for (const call of step.toolCalls) {
          yield { type: "tool-input-start", id: call.id, toolName: call.name };
          if (call.arguments !== "") yield { type: "tool-input-delta", id: call.id, delta: call.arguments };
          yield { type: "tool-call", id: call.id, toolName: call.name, input: call.arguments };
        }
        yield { type: "finish", finishReason: step.toolCalls.length > 0 ? "tool-calls" : "stop", usage: {} };
      } finally {
        source.ended?.(step);
      }
    },
  };
}
