/**
 * The `weft` command line, on commander. Every command talks to weft through the typed client
 * (`weft/client`); `tool call` and `tools` start an ephemeral local runtime when no `--url` (or
 * `WEFT_URL`) names a running one. `--json` prints machine-readable JSON; otherwise output is for
 * people. Exit code 0 on success; 1 when a tool call ends `isError`, or weft refuses the request;
 * 2 for a usage error.
 * @module
 */
import { Command, Option } from "commander";
import { addCallCommands } from "./calls.ts";
import { addScheduleCommands } from "./schedules.ts";
import { type Common, common, intArg, jsonArg, note, out, run, say } from "./command.ts";
import { evalCommand } from "./eval.ts";
import { messageLine, toolLines } from "./format.ts";
import { tail } from "./tail.ts";
import { addUsageCommand } from "./usage.ts";

/** Builds the program (exported for tests that want to inspect it). */
export function program(): Command {
  const weft = new Command("weft").description("Talk to a weft thread runtime: tools, threads, events.").showHelpAfterError();
  weft.configureOutput({ outputError: (text, write) => write(text) }).exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : err.code === "commander.help" || err.code === "commander.version" ? 0 : 2);
  });

  const tool = weft.command("tool").description("call one tool directly");
  common(tool.command("call").argument("<name>", "tool name"), true)
    .description("call a tool with no model turn; prints the JSON outcome; exit code 1 when it ends isError")
    .option("--input <json>", "the tool's input, a JSON object", jsonArg("--input"), {})
    .option("--session <id>", "run in this session (thread id)")
    .option("--token <channel:key>", "continuation token: bind the call to the session this token names")
    .option("--dir <path>", "project folder for the local runtime (default: found from the working directory)")
    .action(async (name: string, opts: Common & { input: unknown; session?: string; token?: string }, cmd: Command) => {
      if (opts.session !== undefined && opts.token !== undefined) weft.error("error: give --session or --token, not both", { exitCode: 2 });
      await run(
        opts,
        async (client) => {
          const outcome = await client.callTool(name, opts.input, {
            ...(opts.session !== undefined ? { sessionId: opts.session } : {}),
            ...(opts.token !== undefined ? { continuationToken: opts.token } : {}),
          });
          out(outcome, opts.json);
          if (outcome.isError) process.exitCode = 1;
          const where = outcome.sessionId ?? opts.session;
          if (!opts.json && where && outcome.status === "awaiting_approval") {
            const pinned = outcome.argsHash ? ` --args-hash ${outcome.argsHash}` : "";
            note(`weft: call ${outcome.callId} waits for approval: npx weft approve ${where} ${outcome.callId}${pinned} (or npx weft deny)`);
          } else if (!opts.json && where && outcome.status === "parked") {
            note(`weft: call ${outcome.callId} is parked: npx weft calls ${where} says how to settle it`);
          }
        },
        true,
        cmd,
      );
    });

  common(weft.command("tools"), true)
    .description("list the tools with their input schemas")
    .option("--dir <path>", "project folder for the local runtime (default: found from the working directory)")
    .action(async (opts: Common, cmd: Command) => {
      await run(
        opts,
        async (client) => {
          const listing = await client.listTools();
          if (opts.json) return out(listing, true);
          for (const t of listing.tools) toolLines(t).forEach(say);
          say(`configHash ${listing.configHash}`);
        },
        true,
        cmd,
      );
    });

  const thread = weft.command("thread").description("create threads, post messages, follow events (in the weft npm start serves, or --url)");
  common(thread.command("new"))
    .description("create a thread; prints its id")
    .option("--agent <name>", "the agent to run (default: the project's default)")
    .option("--arguments <json>", "the thread's arguments, a JSON object", jsonArg("--arguments"))
    .option("--dry-run", "run reads only; other calls are stubbed")
    .action(async (opts: Common & { agent?: string; arguments?: Record<string, unknown>; dryRun?: boolean }) => {
      await run(opts, async (client) => {
        const created = await client.createThread({
          ...(opts.agent ? { agent: opts.agent } : {}),
          ...(opts.arguments ? { arguments: opts.arguments } : {}),
          ...(opts.dryRun ? { dryRun: true } : {}),
        });
        if (opts.json) out(created, true);
        else say(created.threadId);
      });
    });

  common(thread.command("list"))
    .description("your threads, newest first")
    .option("--limit <n>", "at most this many", intArg)
    .action(async (opts: Common & { limit?: number }) => {
      await run(opts, async (client) => {
        const page = await client.listThreads(opts.limit !== undefined ? { limit: opts.limit } : {});
        if (opts.json) return out(page, true);
        for (const t of page.threads) say(`${t.threadId} ${t.agentId} ${new Date(t.createdAt).toISOString()}`);
      });
    });

  common(thread.command("send").argument("<threadId>").argument("<content>", "the message text"))
    .description("post a message (starts a turn)")
    .option("--script <json>", "scripted model steps to play (when no model is configured)", jsonArg("--script"))
    .option("--follow", "then stream the turn's events until it ends")
    .action(async (threadId: string, content: string, opts: Common & { script?: unknown[]; follow?: boolean }) => {
      await run(opts, async (client) => {
        const since = opts.follow ? (await client.getThread(threadId)).lastSeq : 0;
        const posted = await client.postMessage(threadId, { content, ...(opts.script ? { script: opts.script } : {}) });
        if (opts.json) out(posted, true);
        else say(posted.queued ? "queued behind the running turn" : `message #${posted.message?.id} stored; turn started`);
        if (opts.follow) {
          const error = await tail(client, threadId, { since, json: !!opts.json, untilFinished: true });
          if (error) throw error;
        }
      });
    });

  common(thread.command("tail").argument("<threadId>"))
    .description("stream a thread's events live (reconnects by itself); Ctrl-C to stop")
    .option("--since <seq>", "start after this seq (default 0: the whole history first)", intArg, 0)
    .option("--until-finished", "stop when a turn finishes or waits for a person")
    .action(async (threadId: string, opts: Common & { since: number; untilFinished?: boolean }) => {
      await run(opts, async (client) => {
        // A wrong --url, a server that is down or an unknown thread fails here at once (exit 1);
        // only drops after the first answer are retried, as the subscription does by itself.
        await client.getThread(threadId);
        const error = await tail(client, threadId, { since: opts.since, json: !!opts.json, untilFinished: !!opts.untilFinished });
        if (error) throw error;
      });
    });

  common(thread.command("messages").argument("<threadId>"))
    .description("read a thread's messages, a page at a time")
    .option("--limit <n>", "page size (default 100)", intArg)
    .option("--offset <n>", "skip this many", intArg)
    .addOption(new Option("--order <order>", "oldest or newest first").choices(["asc", "desc"]))
    .option("--all", "every message, page by page")
    .action(async (threadId: string, opts: Common & { limit?: number; offset?: number; order?: "asc" | "desc"; all?: boolean }) => {
      await run(opts, async (client) => {
        if (opts.all) {
          for await (const m of client.messages(threadId, opts.limit !== undefined ? { pageSize: opts.limit } : {})) {
            if (opts.json) out(m, true);
            else say(messageLine(m));
          }
          return;
        }
        const page = await client.getMessages(threadId, {
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
          ...(opts.offset !== undefined ? { offset: opts.offset } : {}),
          ...(opts.order ? { order: opts.order } : {}),
        });
        if (opts.json) return out(page, true);
        page.messages.forEach((m) => say(messageLine(m)));
        if (page.hasMore) say(`(${page.total} in all; more with --offset ${(opts.offset ?? 0) + page.messages.length})`);
      });
    });

  addCallCommands(weft);
  addUsageCommand(weft);
  addScheduleCommands(weft);
  evalCommand(weft);
  return weft;
}

/** Runs the CLI on `argv` (as `process.argv`). */
export async function main(argv: string[]): Promise<void> {
  // A reader that left (`weft tools | head -1`) ends the command quietly, as it ends `cat`.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit(process.exitCode ?? 0);
  });
  await program().parseAsync(argv);
}
