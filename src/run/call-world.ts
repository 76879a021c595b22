/**
 * The thread as the call runner (src/calls/runner.ts) sees it: its journal, its events, its
 * settings read once from the Worker's env and the thread's meta, its catalogs, the `ThreadState`
 * of a call, its tool-call hooks and the crash seam.
 * @module
 */
import { type CallExecution, branchIdOf } from "../calls/call.js";
import type { CallWorld, CallSettings, CrashHook } from "../calls/context.js";
import { READ_FILE_TOOL } from "../calls/file-pages.js";
import { CallLocks } from "../calls/lock.js";
import { integerSetting } from "../config.js";
import { limitOf } from "../limits.js";
import type { EventPayloads } from "../protocol.js";
import type { CompiledTool, ToolCatalog } from "../tools/catalog.js";
import type { JournalEntry } from "../tools/journal.js";
import type { ThreadState } from "../tools/thread-state.js";
import type { RunWorld } from "./world.js";
import { hasHook, toolHook } from "./hook-calls.js";
import { createThreadState } from "./state.js";
import { readFileOffered } from "./read-file.js";
import { resultCapBytes } from "./result-cap.js";
import { storedFile } from "../secrets/served-file.js";

/**
 * What the call world needs of its thread (`PortWorld` is it): the run view, the call journal
 * the calls move in (the ledger), redaction, held starts and the crash seam.
 */
export interface CallWorldHost extends RunWorld {
  readonly ledger: CallWorld["journal"];
  readonly callables: RunWorld["callables"] & { catalogFor(execution: CallExecution | null): ToolCatalog; filesWritten(): void };
  readonly crashHook: CrashHook | null;
  /** The value with every secret of the thread replaced. */
  redact<T>(value: T): T;
  holdStart: CallWorld["holdStart"];
  journalDurably: CallWorld["journalDurably"];
}

/** The settings of every call of `engine`'s thread. */
function settingsOf(engine: CallWorldHost): CallSettings {
  const { meta, store, workerEnv } = engine;
  const callTimeoutMs = integerSetting(workerEnv, "WEFT_CALL_TIMEOUT_MS", 1);
  return {
    branchId: branchIdOf(meta),
    dryRun: meta.dryRun,
    // A Durable Object: its output gate holds what `execute` sends until the journal row is durable.
    outputGate: true,
    ...(meta.asOf ? { asOf: meta.asOf } : {}),
    resultCapBytes: resultCapBytes(workerEnv),
    argsKey: () => store.meta.secret("args_key"),
    ...(callTimeoutMs !== undefined ? { callTimeoutMs } : {}),
    files: {
      // A path made from a tool's attachment name is redacted like everything else a client sees.
      writeFile: (path, data, mimeType, size) => {
        const at = engine.redact(path);
        const stored = storedFile({ path: at, mimeType, size, createdAt: 0 }, data, engine.redactor());
        store.files.write(at, stored.data, mimeType, stored.size);
        // From the next step on, the model is offered read_file, which the cap's notice names.
        engine.callables.filesWritten();
        return stored.size;
      },
      fileUrl: (path) => `/threads/${meta.threadId}/files/${encodeURI(path)}`,
      readFile: (path) => store.files.read(path),
      maxAttachments: limitOf(workerEnv, "attachmentsPerCall"),
      ...(readFileOffered(engine.registry) ? { readTool: READ_FILE_TOOL } : {}),
      // What passes here is the tool's own (its result, its error's details): numbers searched too.
      redact: (value) => engine.redactor().content(value),
    },
  };
}

/**
 * The {@link CallWorld} of `engine`'s thread. A class: every thread keeps one, and its members
 * live on the prototype, where an object literal of arrows would give each thread its own
 * closures and property table.
 */
export class ThreadCallWorld implements CallWorld {
  readonly journal: CallWorld["journal"];
  readonly locks = new CallLocks();
  /** Only with remote MCP servers (declared, or the owner's own); see {@link ThreadCallWorld.prepare}. */
  readonly prepareTools?: CallWorld["prepareTools"];
  readonly remoteAtRest?: boolean;
  private kept: CallSettings | undefined;

  constructor(
    private readonly engine: CallWorldHost,
    readonly wakeSoon: () => void,
  ) {
    this.journal = engine.ledger;
    if (engine.registry.mcpServers || engine.workerEnv.ACCOUNT) this.prepareTools = this.prepare;
    if (engine.registry.mcpServers) this.remoteAtRest = true;
  }

  /** Read from the env once, when the first call needs them. */
  get settings(): CallSettings {
    return (this.kept ??= settingsOf(this.engine));
  }

  get crashHook(): CrashHook | null {
    return this.engine.crashHook;
  }

  // An await before a call begins would take a read past the settle window, and its row and
  // result would be written apart: hence only with remote servers. Direct calls are offered only
  // declared ones (the owner's are offered to the sides' models).
  private async prepare(execution: CallExecution | null | "everywhere"): Promise<void> {
    await this.engine.callables.prepare?.(execution);
  }

  emit<K extends keyof EventPayloads>(type: K, data: EventPayloads[K]): void {
    this.engine.emit(type, data);
  }

  holdStart(entry: JournalEntry | null, started: EventPayloads["tool_call_started"] | null): void {
    this.engine.holdStart(entry, started);
  }

  flush(): Promise<void> {
    return this.engine.flush();
  }

  journalDurably(entry: JournalEntry): Promise<void> {
    return this.engine.journalDurably(entry);
  }

  catalogFor(execution: CallExecution | null | "everywhere"): ToolCatalog {
    return execution === "everywhere" ? this.engine.callables.everything() : this.engine.callables.catalogFor(execution);
  }

  stateFor(call: { callId: string; tool: CompiledTool; turnId?: string }, execution: CallExecution | null): ThreadState {
    return createThreadState(this.engine, call, execution);
  }

  hasToolHook(name: "tool_call_started" | "tool_call_finished"): boolean {
    return hasHook(this.engine, name);
  }

  toolHook<N extends "tool_call_started" | "tool_call_finished">(execution: CallExecution | null, name: N, data: EventPayloads[N]): Promise<void> {
    return toolHook(this.engine, execution, name, data);
  }

  turnStatus(turnId: string): string | undefined {
    return this.engine.store.turns.statusOf(turnId);
  }
}
