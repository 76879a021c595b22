/**
 * The dispatch pipeline's view of a thread, bound to one execution (or to none, at rest).
 * @module
 */
import type { EventPayloads } from "../protocol.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { DispatchHost } from "../tools/dispatch.js";
import type { CallExecution } from "../tools/host.js";
import { DEFAULT_RESULT_CAP_BYTES } from "../tools/size.js";
import { limitOf } from "../limits.js";
import type { ThreadEngine } from "./engine.js";
import { toolHook } from "./hooks.js";
import { createThreadState } from "./state.js";
import { MAX_CONTENT_BYTES } from "./store/messages.js";

/**
 * Creates the host the pipeline runs `execution`'s calls with. Its signal is the execution's;
 * outside any run it is a signal that never fires, so stopping a turn never reaches a direct call.
 */
export function createDispatchHost(
  engine: ThreadEngine,
  execution: CallExecution | null,
  catalog: ToolCatalog = engine.catalogFor(execution),
  onFinished?: (data: EventPayloads["tool_call_finished"]) => void,
): DispatchHost {
  const { meta, store } = engine;
  const cap = Number(engine.workerEnv.WEFT_RESULT_CAP_BYTES);
  return {
    branchId: meta.threadId,
    catalog,
    journal: store.calls,
    execution,
    emit: (type, data) => {
      engine.emit(type, data);
      if (type === "tool_call_finished") onFinished?.(data as EventPayloads["tool_call_finished"]);
    },
    ...(engine.hasToolHooks() ? { beforeExecute: (started) => toolHook(engine, execution, "tool_call_started", started) } : {}),
    stateFor: (call) => createThreadState(engine, call, execution),
    signal: execution?.signal ?? new AbortController().signal,
    dryRun: meta.dryRun,
    ...(meta.asOf ? { asOf: meta.asOf } : {}),
    // Capped results become message rows, so the cap never exceeds a message's limit.
    resultCapBytes: Number.isInteger(cap) && cap > 0 ? Math.min(cap, MAX_CONTENT_BYTES / 2) : DEFAULT_RESULT_CAP_BYTES,
    files: {
      // A path made from a tool's attachment name is redacted like everything else a client sees.
      writeFile: (path, data, mimeType, size) => void store.files.write(engine.redact(path), data, mimeType, size),
      fileUrl: (path) => `/threads/${meta.threadId}/files/${encodeURI(path)}`,
      maxAttachments: limitOf(engine.workerEnv, "attachmentsPerCall"),
    },
    flush: () => engine.flush(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...(Number.isInteger(Number(engine.workerEnv.WEFT_CALL_TIMEOUT_MS)) && Number(engine.workerEnv.WEFT_CALL_TIMEOUT_MS) > 0
      ? { callTimeoutMs: Number(engine.workerEnv.WEFT_CALL_TIMEOUT_MS) }
      : {}),
    ...(engine.crashHook ? { checkpoint: engine.crashHook } : {}),
  };
}
