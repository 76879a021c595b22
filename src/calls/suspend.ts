/**
 * Calls that wait inside: a runtime tool (a prompt or an agent called as a tool) whose nested
 * work waits for a person ends its `execute` with {@link CallSuspended}. The pipeline parks the
 * call instead of recording a result; the turn that made it waits like it waits for an approval.
 * Once nothing inside waits any more, dispatching the call again runs `execute` again, which
 * resumes the nested work where it stood (it is stored, so nothing in it runs twice).
 * @module
 */
import type { CallRecord } from "../protocol.js";
import type { ToolCatalog } from "../tools/catalog.js";
import type { CallBook } from "./context.js";

/** Thrown by `execute` when the call's nested work waits for a person. */
export class CallSuspended extends Error {
  constructor(
    message: string,
    /** What the call waits on: nested call ids, or a child thread. */
    readonly waitingOn: readonly string[],
  ) {
    super(message);
    this.name = "CallSuspended";
  }
}

/** How a tool whose calls may suspend tells whether a suspended call still waits. */
export interface Resumable {
  /** True while something inside call `callId` still waits for a person. */
  stillWaiting(callId: string): Promise<boolean>;
  /**
   * Stops the work call `callId` started outside this thread's runs (an agent's child thread) when
   * the call's run is stopped, and resolves once that work has ended; the call's lookup then reads
   * how it ended. Work inside this thread's runs is stopped with them and needs none.
   */
  stopInside?(callId: string): Promise<void>;
}

const RESUMABLE = new WeakMap<object, Resumable>();

/** Marks a tool definition as one whose parked calls resume by themselves. */
export function markResumable<T extends object>(def: T, resumable: Resumable): T {
  RESUMABLE.set(def, resumable);
  return def;
}

/** The resume rule of a tool definition; undefined for tools whose parked calls wait for a person. */
export function resumableOf(def: object): Resumable | undefined {
  return RESUMABLE.get(def);
}

/**
 * Whether a stored call waits for a person: it awaits approval, it is parked for a person to
 * settle, or it is suspended while something inside it waits. A suspended call whose inside no
 * longer waits does not: dispatching it again resumes it.
 */
export async function waitsForPerson(record: Pick<CallRecord, "callId" | "toolName" | "status">, catalog: ToolCatalog): Promise<boolean> {
  if (record.status === "awaiting_approval") return true;
  if (record.status !== "parked") return false;
  const resumable = catalog.has(record.toolName) ? resumableOf(catalog.get(record.toolName).def) : undefined;
  return !resumable || (await resumable.stillWaiting(record.callId));
}

/**
 * Whether turn `turnId` still waits for a person: a call of its open step `pending`, or one queued
 * by them, waits for a person ({@link waitsForPerson}); names are looked up in `catalog`.
 */
export async function turnWaits(journal: CallBook, catalog: ToolCatalog, turnId: string, pending: readonly { id: string }[]): Promise<boolean> {
  for (const call of pending) {
    const record = journal.get(call.id);
    if (record && (await waitsForPerson(record, catalog))) return true;
  }
  if (!journal.turnWaits(turnId)) return false;
  for (const record of [...journal.list(1000, 0, "awaiting_approval"), ...journal.list(1000, 0, "parked")]) {
    if (record.turnId === turnId && (await waitsForPerson(record, catalog))) return true;
  }
  return false;
}
