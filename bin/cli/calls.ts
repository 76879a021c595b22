/**
 * The commands a person uses on a thread's calls: list them, approve or deny one that waits for
 * approval, settle one that is parked, answer a client tool's call, and stop the running turn. They talk to a running weft
 * (default: the local one `npm start` serves); a call that waits for a person waits in that weft.
 * @module
 */
import { type Command, InvalidArgumentError } from "commander";
import type { CallRecord, CallStatus, ClientAnswer, Settlement, WaitingCall, WaitingProblem } from "weft/client";
import { type Common, common, jsonArg, note, out, run, say } from "./command.ts";
import { clip } from "./format.ts";

/**
 * The park reason of a client tool's call waiting for its answer: CLIENT_WAIT_REASON of
 * src/calls/client.ts, which the CLI cannot import (it loads only `weft/client`); a test holds the two equal.
 */
export const CLIENT_WAIT_REASON = "waiting for the client's answer (a client tool)";

/** One line per call: id, tool, status, and what a person can do about it. */
export function callLine(threadId: string, c: Pick<CallRecord, "callId" | "toolName" | "status" | "input" | "parkReason">): string {
  let next = "";
  if (c.status === "awaiting_approval") next = `  (npx weft approve ${threadId} ${c.callId}, or npx weft deny)`;
  else if (c.status === "parked" && c.parkReason === CLIENT_WAIT_REASON) next = `  (${c.parkReason}; npx weft answer ${threadId} ${c.callId} --result <json>|--error <text>)`;
  else if (c.status === "parked") next = `  (${c.parkReason ? `${clip(c.parkReason, 60)}; ` : ""}npx weft settle ${threadId} ${c.callId} --succeeded <result>|--failed <error>|--retry)`;
  return `${c.callId} ${c.toolName} ${c.status}${c.input !== undefined ? ` ${clip(JSON.stringify(c.input), 60)}` : ""}${next}`;
}

/** A line of `weft waiting`: the call's agent, then its `weft calls` line (no input: the inbox does not carry it). */
export function waitingLine(c: WaitingCall): string {
  return `${c.agentId} ${callLine(c.threadId, { callId: c.callId, toolName: c.toolName, status: c.status, ...(c.reason !== undefined ? { parkReason: c.reason } : {}) })}`;
}

/** The settlement the options name: exactly one of --succeeded, --failed, --retry. */
function settlementOf(opts: { succeeded?: string; failed?: string; retry?: boolean }): Settlement {
  const given = [opts.succeeded !== undefined, opts.failed !== undefined, !!opts.retry].filter(Boolean).length;
  if (given !== 1) throw new InvalidArgumentError("give exactly one of --succeeded <result>, --failed <error>, --retry");
  if (opts.succeeded !== undefined) return { outcome: "succeeded", result: opts.succeeded };
  if (opts.failed !== undefined) return { outcome: "failed", error: opts.failed };
  return { outcome: "retry" };
}

/** The answer the options name: exactly one of --result (already parsed JSON) and a non-empty --error. */
function answerOf(opts: { result?: unknown; error?: string }): ClientAnswer {
  if ((opts.result !== undefined) === (opts.error !== undefined)) throw new InvalidArgumentError("give exactly one of --result <json>, --error <text>");
  if (opts.error !== undefined) {
    if (opts.error === "") throw new InvalidArgumentError("--error needs a text (what the model is told went wrong)");
    return { error: opts.error };
  }
  return { result: opts.result };
}

/** Adds `waiting`, `calls`, `approve`, `deny`, `settle`, `answer` and `stop` to `weft`. */
export function addCallCommands(weft: Command): void {
  common(weft.command("waiting"))
    .description("list the calls that wait for you across your threads, with what to run for each")
    .action(async (opts: Common, cmd: Command) => {
      await run(opts, async (client) => {
        const calls: WaitingCall[] = [];
        const problems: WaitingProblem[] = [];
        const more: string[] = [];
        for (let cursor: string | null | undefined; cursor !== null; ) {
          const page = await client.listWaitingCalls(cursor ? { cursor } : {});
          calls.push(...page.calls);
          problems.push(...page.problems);
          more.push(...page.more);
          cursor = page.nextCursor;
        }
        if (opts.json) return out({ calls, problems, more }, true);
        if (calls.length === 0) say("no calls wait for you");
        for (const c of calls) say(waitingLine(c));
        for (const id of more) note(`weft: thread ${id} has more waiting calls: npx weft calls ${id} --status parked (or awaiting_approval)`);
        for (const p of problems) note(`weft: thread ${p.threadId} could not be read: ${p.code}: ${p.message}`);
      }, false, cmd);
    });

  common(weft.command("calls").argument("<threadId>", "the thread (a direct call's sessionId)"))
    .description("list a thread's calls, with what a person can do about those that wait")
    // The server checks the status (one list of them, in weft): a wrong one is refused with its path.
    .option("--status <status>", "only calls in this status (awaiting_approval, parked, succeeded, ...)")
    .action(async (threadId: string, opts: Common & { status?: CallStatus }, cmd: Command) => {
      await run(opts, async (client) => {
        const calls: CallRecord[] = [];
        for await (const c of client.calls(threadId, opts.status ? { status: opts.status } : {})) calls.push(c);
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

  /** What `parse` reads from the options, or a usage error (exit 2) naming what is wrong. */
  const usage = <T>(parse: () => T): T => {
    try {
      return parse();
    } catch (e) {
      return weft.error(`error: ${(e as Error).message}`, { exitCode: 2 });
    }
  };

  common(weft.command("settle").argument("<threadId>").argument("<callId>"))
    .description("give a parked call its outcome (what really happened), or run it again with --retry")
    .option("--succeeded <result>", "it happened: this is its result")
    .option("--failed <error>", "it did not happen: this is why")
    .option("--retry", "run it again")
    .action(async (threadId: string, callId: string, opts: Common & { succeeded?: string; failed?: string; retry?: boolean }, cmd: Command) => {
      const settlement: Settlement = usage(() => settlementOf(opts));
      await run(opts, async (client) => out(await client.settle(threadId, callId, settlement), opts.json), false, cmd);
    });

  common(weft.command("answer").argument("<threadId>").argument("<callId>"))
    .description("answer a client tool's call that waits for the client: the model gets the result (or the error) and the turn goes on")
    .option("--result <json>", 'the result, as JSON (a string result is quoted: \'"done"\')', jsonArg("--result"))
    .option("--error <text>", "an error the model sees instead (the user refused, the dialog was closed)")
    .action(async (threadId: string, callId: string, opts: Common & { result?: unknown; error?: string }, cmd: Command) => {
      const answer: ClientAnswer = usage(() => answerOf(opts));
      await run(opts, async (client) => out(await client.answerCall(threadId, callId, answer), opts.json), false, cmd);
    });

  common(weft.command("stop").argument("<threadId>"))
    .description("stop the thread's running turn")
    .action(async (threadId: string, opts: Common, cmd: Command) => {
      await run(opts, async (client) => out(await client.stop(threadId), opts.json), false, cmd);
    });
}
