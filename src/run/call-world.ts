/**
 * The thread as the call runner (src/calls/runner.ts) sees it: its journal, its events, its
 * settings read once from the Worker's env and the thread's meta, its catalogs, the `ThreadState`
 * of a call, its tool-call hooks and the crash seam.
 * @module
 */
import type { CallExecution } from "../calls/call.js";
import type { CallWorld, CallSettings, CrashHook } from "../calls/context.js";
import { READ_FILE_TOOL } from "../calls/file-pages.js";
import { integerSetting } from "../config.js";
import { limitOf } from "../limits.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { RunWorld } from "./world.js";
import { hasHook, toolHook } from "./hook-calls.js";
import { createThreadState } from "./state.js";
import { readFileOffered } from "./read-file.js";
import { resultCapBytes } from "./result-cap.js";

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
    branchId: meta.threadId,
    dryRun: meta.dryRun,
    // A Durable Object: its output gate holds what `execute` sends until the journal row is durable.
    outputGate: true,
    ...(meta.asOf ? { asOf: meta.asOf } : {}),
    resultCapBytes: resultCapBytes(workerEnv),
    ...(callTimeoutMs !== undefined ? { callTimeoutMs } : {}),
    files: {
      // A path made from a tool's attachment name is redacted like everything else a client sees.
      writeFile: (path, data, mimeType, size) => {
        store.files.write(engine.redact(path), data, mimeType, size);
        // From the next step on, the model is offered read_file, which the cap's notice names.
        engine.callables.filesWritten();
      },
      fileUrl: (path) => `/threads/${meta.threadId}/files/${encodeURI(path)}`,
      maxAttachments: limitOf(workerEnv, "attachmentsPerCall"),
      ...(readFileOffered(engine.registry) ? { readTool: READ_FILE_TOOL } : {}),
      redact: (text) => engine.redact(text),
    },
  };
}

/** The {@link CallWorld} of `engine`'s thread. */
export function callWorldOf(engine: CallWorldHost, wakeSoon: () => void): CallWorld {
  const { store } = engine;
  let settings: CallSettings | undefined;
  return {
    journal: engine.ledger,
    // Read from the env once, when the first call needs them.
    get settings() {
      return (settings ??= settingsOf(engine));
    },
    emit: (type, data) => engine.emit(type, data),
    holdStart: (entry, started) => engine.holdStart(entry, started),
    flush: () => engine.flush(),
    journalDurably: (entry) => engine.journalDurably(entry),
    wakeSoon,
    catalogFor: (execution) => (execution === "everywhere" ? engine.callables.everything() : engine.callables.catalogFor(execution)),
    // Only with remote MCP servers (declared, or the owner's own): an await before a call begins
    // would take a read past the settle window, and its row and result would be written apart.
    // Direct calls are offered only declared ones (the owner's are offered to the sides' models).
    ...(engine.registry.mcpServers || engine.workerEnv.ACCOUNT ? { prepareTools: async (execution: CallExecution | null | "everywhere") => engine.callables.prepare?.(execution) } : {}),
    ...(engine.registry.mcpServers ? { remoteAtRest: true } : {}),
    stateFor: (call, execution) => createThreadState(engine, call, execution),
    hasToolHook: (name) => hasHook(engine, name),
    toolHook: (execution, name, data) => toolHook(engine, execution, name, data),
    get crashHook() {
      return engine.crashHook;
    },
    turnStatus: (turnId) => store.turns.statusOf(turnId),
  };
}
