/**
 * Where a test thread's model answers come from: a script played by weft's scripted model, a
 * recorded provider file replayed offline, or a live provider.
 * @module
 */
import type { ScriptStep } from "../models/model.js";

/** Host the recorder answers on inside the test Worker (vitest.agents.config.ts routes it). */
export const RECORDER_HOST = "http://weft-recorder.test";

/** Providers whose traffic can be recorded, with the env names of their key and base URL. */
export const RECORDABLE_PROVIDERS = {
  openai: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  anthropic: { key: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  "openai-compatible": { key: "OPENAI_COMPATIBLE_API_KEY", baseUrl: "OPENAI_COMPATIBLE_BASE_URL" },
} as const;

/** A provider {@link recorded} can record and replay. */
export type RecordableProvider = keyof typeof RECORDABLE_PROVIDERS;

/**
 * Where a test thread's model answers come from; made by {@link scripted}, {@link recorded} or
 * {@link live}.
 */
export type ModelSource =
  | { kind: "scripted"; steps: ScriptStep[] }
  | { kind: "recorded"; file: string; model: string }
  | { kind: "live"; model: string };

/**
 * weft's scripted model plays `steps`, one per model request, across the thread's turns (the
 * same steps `POST /threads/:id/messages` takes as `script`). A step without tool calls ends the
 * turn. No network is used.
 * @example scripted([{ toolCalls: [{ id: "c1", name: "lookup_order", arguments: { orderId: "A-1001" } }] }, { text: "Shipped." }])
 */
export function scripted(steps: ScriptStep[] = []): ModelSource {
  return { kind: "scripted", steps };
}

/**
 * A recorded provider: the thread talks to `model` (`openai:<id>`, `anthropic:<id>` or
 * `openai-compatible:<id>`), and every request it sends is answered from `file` (relative to the
 * project root, for example `agents/tests/recordings/desk.json`), in order, offline. A request
 * that differs from the recorded one fails the turn, and {@link TestThread.post} throws with a
 * diff of the two. Run the suite once in record mode (docs/testing.md names the switch) with the provider's key in
 * the shell's env or `.dev.vars` to (re)write the file from the real provider; the key and every secret env
 * value of the thread are stripped before anything is written (docs/testing.md).
 * @throws Error when `model` names a provider that cannot be recorded
 */
export function recorded(file: string, options: { model: string }): ModelSource {
  const provider = options.model.slice(0, options.model.indexOf(":"));
  if (!Object.hasOwn(RECORDABLE_PROVIDERS, provider)) {
    throw new Error(`recorded: model "${options.model}": only ${Object.keys(RECORDABLE_PROVIDERS).join(", ")} can be recorded`);
  }
  return { kind: "recorded", file, model: options.model };
}

/**
 * A live provider: the thread talks to `model` with the keys the test Worker has (`.dev.vars`,
 * or `env` given to {@link createTestThread}). Needs the network; each run costs tokens.
 */
export function live(model: string): ModelSource {
  return { kind: "live", model };
}
