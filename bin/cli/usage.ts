/**
 * `weft usage`: what a thread, or the caller's account over a span of days, used: tokens, cost and
 * time, read through the typed client (`GET /threads/:id/usage`, `GET /account/usage`).
 * @module
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { type Common, common, out, run, say } from "./command.ts";
import { plural } from "./format.ts";

/** Totals as one line: requests, tokens in/out (cached, reasoning), cost (and how many requests have no price) and time. */
export function totalsLine(t: { requests: number; inputTokens: number; outputTokens: number; cachedInputTokens: number; reasoningTokens: number; estimatedRequests: number; costUsd: number; unpricedRequests?: number; durationMs: number }): string {
  const extra = [t.cachedInputTokens ? `${t.cachedInputTokens} cached` : "", t.reasoningTokens ? `${t.reasoningTokens} reasoning` : "", t.estimatedRequests ? `${t.estimatedRequests} estimated` : ""].filter(Boolean).join(", ");
  const unknown = t.unpricedRequests ? ` + ${plural(t.unpricedRequests, "request")} of unpriced models (cost unknown)` : "";
  return `${plural(t.requests, "request")}, ${t.inputTokens} in / ${t.outputTokens} out tokens${extra ? ` (${extra})` : ""}, $${t.costUsd.toFixed(6)}${unknown}, ${(t.durationMs / 1000).toFixed(1)} s`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayArg = (value: string) => {
  if (!DAY.test(value)) throw new InvalidArgumentError("expected a UTC day as YYYY-MM-DD");
  return value;
};

/** Adds `usage [threadId]` to `weft`. */
export function addUsageCommand(weft: Command): void {
  common(weft.command("usage").argument("[threadId]", "a thread; without it, the caller's whole account"))
    .description("print tokens, cost and time: of a thread per turn, or of your account per day, agent or model")
    .option("--from <day>", "account: first UTC day, YYYY-MM-DD (default 30 days ago)", dayArg)
    .option("--to <day>", "account: last UTC day, YYYY-MM-DD (default today)", dayArg)
    .addOption(new Option("--group-by <what>", "account: group by").choices(["day", "agent", "model"]).default("day"))
    .action(async (threadId: string | undefined, opts: Common & { from?: string; to?: string; groupBy: "day" | "agent" | "model" }, cmd: Command) => {
      await run(
        opts,
        async (client) => {
          if (threadId !== undefined) {
            const usage = await client.getThreadUsage(threadId);
            if (opts.json) return out(usage, true);
            say(`thread ${usage.threadId} (${usage.agentId}): ${totalsLine(usage.total)}; tools: ${plural(usage.total.tools.calls, "call")}, ${plural(usage.total.tools.attempts, "attempt")}, ${(usage.total.tools.durationMs / 1000).toFixed(1)} s`);
            for (const t of usage.turns) say(`  turn ${t.turnId}: ${totalsLine(t)}; tools: ${plural(t.tools.calls, "call")}`);
            for (const m of usage.models) say(`  model ${m.model}: ${totalsLine(m)}`);
            return;
          }
          const usage = await client.getAccountUsage({ ...(opts.from ? { from: opts.from } : {}), ...(opts.to ? { to: opts.to } : {}), groupBy: opts.groupBy });
          if (opts.json) return out(usage, true);
          say(`${usage.from}..${usage.to}: ${totalsLine(usage.total)}`);
          for (const g of usage.groups) say(`  ${usage.groupBy} ${g.key}: ${totalsLine(g)}`);
        },
        false,
        cmd,
      );
    });
}
