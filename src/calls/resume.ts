/**
 * Resuming a suspended call: a parked call of a tool whose calls suspend (a prompt or agent called
 * as a tool) runs again, entering the pipeline at execute, once nothing inside it waits for a
 * person: its `execute` resumes the nested work where it stood (stored, so nothing in it runs
 * twice). Any other parked call stays as it is until a person settles it.
 * @module
 */
import { effectOrWrite } from "../tools/judge.js";
import type { CallOutcome } from "./call.js";
import type { BookedCall, CallContext } from "./context.js";
import { liveInput, requestOf } from "./input.js";
import { enterExecute } from "./pipeline.js";
import { outcomeOf } from "./record.js";
import { waitsForPerson } from "./suspend.js";

/** Resumes parked call `record` when nothing inside it waits any more; else answers where it stands. */
export async function resumeSuspended(ctx: CallContext, record: BookedCall): Promise<CallOutcome> {
  if (await waitsForPerson(record, ctx.catalog)) return outcomeOf(ctx, record);
  const tool = ctx.catalog.get(record.toolName);
  const input = await liveInput(tool, record, ctx.argsKey);
  // It ran before it suspended: a predicate failing now cannot refuse it, nor a redeclaration
  // since then make it less cautious than the class it started under (see judge.ts).
  const terms = effectOrWrite(tool, input, record.effect);
  return enterExecute(ctx, { request: requestOf(record), tool, input, ...terms, existing: record, startedAt: Date.now(), ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}) });
}
