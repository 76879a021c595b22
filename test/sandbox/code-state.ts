/**
 * Running code in a test thread directly, as a `run_code` call of it would: the `state` such a call
 * gets, and a new thread's run of some source.
 * @module
 */
import type { CodeExecutionOptions, CodeExecutionResult, ThreadState } from "../../src/tools/thread-state.js";
import { createThread, inThread } from "../helpers.js";

/** The `state` of a `run_code` call `callId` of the thread whose object is `instance` (inside `inThread`). */
export async function codeState(instance: any, callId: string): Promise<ThreadState> {
  const { createThreadState } = await import("../../src/run/state.js");
  return createThreadState(instance.world, { callId, tool: instance.world.catalog.get("run_code") }, null);
}

/** Runs `source` in a new thread, as its `run_code` call `callId` would, and answers the run's result. */
export async function runInNewThread(source: string, options: CodeExecutionOptions, callId = "call_test_code"): Promise<CodeExecutionResult> {
  const id = await createThread();
  return inThread(id, async (instance: any) => (await codeState(instance, callId)).runCode(source, options).result);
}
