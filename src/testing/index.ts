/**
 * `weft/testing`: test your own agents with vitest inside workerd. Create a thread for an agent
 * of `agents/` whose model is scripted, a recorded provider file or a live provider; post
 * messages and await their turns; read the tool calls, approvals, events and final messages as
 * typed values, and assert on them with vitest's `expect`. Run the tests with
 * `npm run test:agents` (vitest.agents.config.ts); the guide is docs/testing.md.
 *
 * @example
 * import { expect, it } from "vitest";
 * import { createTestThread, scripted } from "weft/testing";
 *
 * it("looks the order up", async () => {
 *   const thread = await createTestThread({ agent: "example", model: scripted([
 *     { toolCalls: [{ id: "c1", name: "roll_dice", arguments: { count: 2 } }] },
 *     { text: "Done." },
 *   ]) });
 *   const turn = await thread.post("Roll two dice");
 *   expect(turn.calls.map((c) => c.status)).toEqual(["succeeded"]);
 *   expect(turn.text).toBe("Done.");
 * });
 * @module
 */
/** A thread under test: create it for an agent, post, approve, deny, and read what happened. */
export { createTestThread, TestThread, type TestEnvValue, type TestThreadOptions, type TurnOutcome } from "./thread.js";
/** What `thread.callTool` answers: the outcome of a direct call (`isError`, `result`, or the call waiting for a person). */
export type { ToolCallOutcome } from "../client/index.js";
/** Where a test thread's model answers come from: a script, a recorded provider file, or a live provider. */
export { live, recorded, scripted, RECORDABLE_PROVIDERS, type ModelSource, type RecordableProvider } from "./models.js";
/** What the helpers return: call records, event frames and messages, as the HTTP API shows them. */
export type { CallRecord, EventFrame, Message } from "../protocol.js";
/** A posted message's content: text, or parts (text, images, files). */
export type { ContentPart, MessageContent } from "../content/parts.js";
/** One step of the scripted model: `{ text?, toolCalls?: [{ id?, name, arguments }], waitFor?, chunks?, chunkDelayMs? }`. */
export type { ScriptStep } from "../models/model.js";
