/**
 * The dispatch pipeline's view of a thread, bound to one execution (or to none, at rest). One is
 * made per dispatch, so it is a class whose methods live on the prototype, and the settings read
 * from the Worker's env are worked out once per engine.
 * @module
 */
import type { EventPayloads } from "../protocol.js";
import type { Deadlines } from "../calls/attempt.js";
import type { CompiledTool, ToolCatalog } from "../tools/catalog.js";
import type { DispatchHost } from "../calls/dispatch.js";
import type { CallExecution, CrashPoint } from "../calls/host.js";
import type { CallJournal, JournalEntry } from "../tools/journal.js";
import { integerSetting } from "../config.js";
import { DEFAULT_RESULT_CAP_BYTES, type FileSink } from "../calls/size.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { Effect } from "../tools/types.js";
import { limitOf } from "../limits.js";
import type { ThreadEngine } from "./engine.js";
import { toolHook } from "./hooks.js";
import { createThreadState } from "./state.js";
import { MAX_CONTENT_BYTES } from "./store/messages.js";

/** What a host takes from the Worker's env and the thread's store: the same for every dispatch of an engine. */
interface HostSettings {
  resultCapBytes: number;
  callTimeoutMs: number | undefined;
  files: FileSink;
}

const settingsOf = new WeakMap<ThreadEngine, HostSettings>();

function settings(engine: ThreadEngine): HostSettings {
  let found = settingsOf.get(engine);
  if (found) return found;
  const { meta, store, workerEnv } = engine;
  const cap = integerSetting(workerEnv, "WEFT_RESULT_CAP_BYTES", 1);
  found = {
    // Capped results become message rows, so the cap never exceeds a message's limit.
    resultCapBytes: cap !== undefined ? Math.min(cap, MAX_CONTENT_BYTES / 2) : DEFAULT_RESULT_CAP_BYTES,
    callTimeoutMs: integerSetting(workerEnv, "WEFT_CALL_TIMEOUT_MS", 1),
    files: {
      // A path made from a tool's attachment name is redacted like everything else a client sees.
      writeFile: (path, data, mimeType, size) => void store.files.write(engine.redact(path), data, mimeType, size),
      fileUrl: (path) => `/threads/${meta.threadId}/files/${encodeURI(path)}`,
      maxAttachments: limitOf(workerEnv, "attachmentsPerCall"),
    },
  };
  settingsOf.set(engine, found);
  return found;
}

/** A `DispatchHost` over a thread's engine. */
class ThreadDispatchHost implements DispatchHost {
  readonly branchId: string;
  readonly journal: CallJournal;
  readonly signal: AbortSignal | null;
  readonly dryRun: boolean;
  readonly asOf?: string;
  readonly resultCapBytes: number;
  readonly files: FileSink;
  readonly callTimeoutMs?: number;
  readonly deadlines: Deadlines;
  readonly beforeExecute?: (started: EventPayloads["tool_call_started"]) => Promise<void>;
  readonly checkpoint?: (point: CrashPoint, call: { callId: string; toolName: string; effect?: Effect }) => void | Promise<void>;

  constructor(
    private readonly engine: ThreadEngine,
    readonly execution: CallExecution | null,
    readonly catalog: ToolCatalog,
    private readonly onFinished: ((data: EventPayloads["tool_call_finished"]) => void) | undefined,
  ) {
    const { meta } = engine;
    const set = settings(engine);
    this.branchId = meta.threadId;
    this.journal = engine.store.calls;
    this.signal = execution?.signal ?? null;
    this.dryRun = meta.dryRun;
    if (meta.asOf) this.asOf = meta.asOf;
    this.resultCapBytes = set.resultCapBytes;
    this.files = set.files;
    if (set.callTimeoutMs !== undefined) this.callTimeoutMs = set.callTimeoutMs;
    this.deadlines = engine.deadlines;
    if (engine.hasToolHooks()) this.beforeExecute = (started) => toolHook(engine, execution, "tool_call_started", started);
    if (engine.crashHook) this.checkpoint = engine.crashHook;
  }

  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    this.engine.emit(type, data);
    if (type === "tool_call_finished") this.onFinished?.(data as EventPayloads["tool_call_finished"]);
  }

  holdStart(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void {
    this.engine.holdStart(entry, started);
  }

  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }): ThreadState {
    return createThreadState(this.engine, call, this.execution);
  }

  flush(): Promise<void> {
    return this.engine.flush();
  }

  journalDurably(entry: JournalEntry): Promise<void> {
    return this.engine.journalDurably(entry);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/**
 * Creates the host the pipeline runs `execution`'s calls with. Its signal is the execution's;
 * outside any run there is none, so stopping a turn never reaches a direct call.
 */
export function createDispatchHost(
  engine: ThreadEngine,
  execution: CallExecution | null,
  catalog: ToolCatalog = engine.catalogFor(execution),
  onFinished?: (data: EventPayloads["tool_call_finished"]) => void,
): DispatchHost {
  return new ThreadDispatchHost(engine, execution, catalog, onFinished);
}
