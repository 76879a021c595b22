/**
 * The commands a person uses on a thread's calls: list them, approve or deny one that waits for
 * approval, settle one that is parked, and stop the running turn. They talk to a running weft
 * (default: the local one `npm start` serves); a call that waits for a person waits in that weft.
 * @module
 */
import { type Command, InvalidArgumentError } from "commander";
import type { CallRecord, CallStatus, Settlement } from "weft/client";
import { type Common, common, out, run, say } from "./command.ts";
import { clip } from "./format.ts";

/** One line per call: id, tool, status, and what a person can do about it. */
export function callLine(threadId: string, c: CallRecord): string {
  const next =
    c.status === "awaiting_approval"
      ? `  (weft approve ${threadId} ${c.callId}, or weft deny)`
      : c.status === "parked"
        ? `  (${c.parkReason ? `${clip(c.parkReason, 60)}; ` : ""}weft settle ${threadId} ${c.callId} --succeeded <result>|--failed <error>|--retry)`
        : "";
  return `${c.callId} ${c.toolName} ${c.status}${c.input !== undefined ? ` ${clip(JSON.stringify(c.input), 60)}` : ""}${next}`;
}

/** The settlement the options name: exactly one of --succeeded, --failed, --retry. */
function settlementOf(opts: { succeeded?: string; failed?: string; retry?: boolean }): Settlement {
  const given = [opts.succeeded !== undefined, opts.failed !== undefined, !!opts.retry].filter(Boolean).length;
  if (given !== 1) throw new InvalidArgumentError("give exactly one of --succeeded <result>, --failed <error>, --retry");
  if (opts.succeeded !== undefined) return { outcome: "succeeded", result: opts.succeeded };
  if (opts.failed !== undefined) return { outcome: "failed", error: opts.failed };
  return { outcome: "retry" };
}

/** Adds `calls`, `approve`, `deny`, `settle` and `stop` to `weft`. */
export function addCallCommands(weft: Command): void {
  common(weft.command("calls").argument("<threadId>", "the thread (a direct call's sessionId)"))
    .description("list a thread's calls, with what a person can do about those that wait")
    // The server checks the status (one list of them, in weft): a wrong one is refused with its path.
    .option("--status <status>", "only calls in this status (awaiting_approval, parked, succeeded, ...)")
    .action(async (threadId: string, opts: Common & { status?: CallStatus }, cmd: Command) => {
      await run(opts, async (client) => {
        const { calls } = await client.listCalls(threadId, opts.status ? { status: opts.status } : {});
        if (opts.json) return out({ calls }, true);
        if (calls.length === 0) say(opts.status ? `no ${opts.status} calls` : "no calls");
        for (const c of calls) say(callLine(threadId, c));
      }, false, cmd);
    });

  common(weft.command("approve").argument("<threadId>").argument("<callId>"))
    .description("approve a call that waits for approval: it runs once; prints its outcome")
    .option("--args-hash <hash>", "approve only if the call's arguments still hash to this (its argsHash)")
    .action(async (threadId: string, callId: string, opts: Common & { argsHash?: string }, cmd: Command) => {
      await run(opts, async (client) => out(await client.approve(threadId, callId, opts.argsHash ? { argsHash: opts.argsHash } : {}), opts.json), false, cmd);
    });

  common(weft.command("deny").argument("<threadId>").argument("<callId>"))
    .description("deny a call that waits for approval: it never runs; the model gets the denial")
    .option("--reason <text>", "why, for the model and the record")
    .action(async (threadId: string, callId: string, opts: Common & { reason?: string }, cmd: Command) => {
      await run(opts, async (client) => out(await client.deny(threadId, callId, opts.reason !== undefined ? { reason: opts.reason } : {}), opts.json), false, cmd);
    });

  common(weft.command("settle").argument("<threadId>").argument("<callId>"))
    .description("give a parked call its outcome (what really happened), or run it again with --retry")
    .option("--succeeded <result>", "it happened: this is its result")
    .option("--failed <error>", "it did not happen: this is why")
    .option("--retry", "run it again")
    .action(async (threadId: string, callId: string, opts: Common & { succeeded?: string; failed?: string; retry?: boolean }, cmd: Command) => {
      let settlement: Settlement;
      try {
        settlement = settlementOf(opts);
      } catch (e) {
        return weft.error(`error: ${(e as Error).message}`, { exitCode: 2 });
      }
      await run(opts, async (client) => out(await client.settle(threadId, callId, settlement), opts.json), false, cmd);
    });

  common(weft.command("stop").argument("<threadId>"))
    .description("stop the thread's running turn")
    .action(async (threadId: string, opts: Common, cmd: Command) => {
      await run(opts, async (client) => out(await client.stop(threadId), opts.json), false, cmd);
    });
}
