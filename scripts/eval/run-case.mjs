// @ts-check
/**
 * Plays one case for one candidate on a fresh dry-run thread: writes are answered by the tool's
 * `dryRunResult` and never run; reads run as the agent wires them. Each of the case's messages is
 * posted in turn and awaited on the thread's WebSocket; a call asking for approval is approved or
 * denied when the case says so (`approvals`), else the case ends waiting. What the thread did is
 * read back as a `Transcript` for the scorers.
 * @module
 */

/**
 * @typedef {{ input: number, output: number, estimated: number, costUsd: number | null }} Usage
 *   the thread's model tokens as its usage ledger counts them; `estimated`: requests whose counts are
 *   weft's estimate (the provider reported none); `costUsd`: at weft's price table, null when a model has no price
 * @typedef {{ id: string, name: string, raw: string, arguments: unknown }} RequestedCall
 *   a call the model asked for: `raw` as sent, `arguments` parsed (the raw text when it is not JSON)
 * @typedef {{ threadId: string | null, status: "completed" | "failed" | "stopped" | "waiting" | "error",
 *   error?: string, requested: RequestedCall[], calls: any[], messages: any[], text: string,
 *   tools: Map<string, Record<string, unknown>>, usage: Usage, turnMs: number[] }} Transcript
 *   `calls` are the thread's call records; `text` is the last assistant text; `tools` maps each
 *   offered tool to its input JSON Schema; `turnMs` is each turn's time, started to finished
 */

/**
 * The thread creation body of a case for a candidate. The candidate's settings win over the
 * case's env for the names both give; a candidate with a `model` gets it as `WEFT_MODEL`, one
 * without plays the case's `script` on the scripted model.
 * @param {import("./suite.mjs").Case} kase
 * @param {import("./suite.mjs").Candidate} candidate
 */
export function threadBody(kase, candidate) {
  const env = { ...(kase.env ?? {}), ...(candidate.env ?? {}), ...(candidate.model ? { WEFT_MODEL: { value: candidate.model, type: "text" } } : {}) };
  const agent = candidate.agent ?? kase.agent;
  const args = { ...(kase.arguments ?? {}), ...(candidate.arguments ?? {}) };
  return {
    ...(agent ? { agent } : {}),
    ...(Object.keys(args).length > 0 ? { arguments: args } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    dryRun: true,
    ...(kase.asOf ? { asOf: kase.asOf } : {}),
    ...(kase.history ? { history: kase.history } : {}),
    ...(!candidate.model && kase.script ? { script: kase.script } : {}),
  };
}

/**
 * Plays `kase`; never throws: a refusal or a timeout is a transcript with status `error`.
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client
 * @param {import("./suite.mjs").Case} kase
 * @param {import("./suite.mjs").Candidate} candidate
 * @param {{ timeoutMs: number }} opts
 * @returns {Promise<Transcript>}
 */
export async function playCase(client, kase, candidate, opts) {
  return (await withThread(client, kase, candidate, opts, async (t) => t)).value;
}

/**
 * Plays `kase`, runs `use` on the transcript while the thread still exists, then deletes the
 * thread when `opts.cleanup` says so (a run against a deployed weft leaves no threads behind).
 * A thread that cannot be deleted is reported in `cleanupError`, never thrown.
 * @template T
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client
 * @param {import("./suite.mjs").Case} kase @param {import("./suite.mjs").Candidate} candidate
 * @param {{ timeoutMs: number, cleanup?: boolean }} opts
 * @param {(t: Transcript) => Promise<T>} use
 * @returns {Promise<{ value: T, cleanupError?: string }>}
 */
export async function withThread(client, kase, candidate, opts, use) {
  const t = await play(client, kase, candidate, opts);
  let value;
  try {
    value = await use(t);
  } finally {
    if (opts.cleanup && t.threadId) {
      const failed = await client.deleteThread(t.threadId).then(() => undefined, (err) => (err instanceof Error ? err.message : String(err)));
      if (failed !== undefined && value !== undefined) return { value, cleanupError: failed };
    }
  }
  return { value };
}

/**
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client @param {import("./suite.mjs").Case} kase
 * @param {import("./suite.mjs").Candidate} candidate @param {{ timeoutMs: number }} opts @returns {Promise<Transcript>}
 */
async function play(client, kase, candidate, opts) {
  /** @type {Transcript} */
  const t = { threadId: null, status: "completed", requested: [], calls: [], messages: [], text: "", tools: new Map(), usage: { input: 0, output: 0, estimated: 0, costUsd: null }, turnMs: [] };
  let events = null;
  try {
    const { threadId } = await client.createThread(threadBody(kase, candidate));
    t.threadId = threadId;
    events = await client.openEvents(threadId, 0);
    for (const content of kase.messages) {
      const from = events.frames.length;
      await client.postMessage(threadId, { content });
      const end = await untilTurnEnds(client, threadId, events, kase.approvals, from, opts.timeoutMs);
      const frames = events.frames.slice(from);
      const started = frames.find((f) => f.type === "turn_started");
      if (started) t.turnMs.push(Date.parse(end.at) - Date.parse(started.at));
      if (end.type !== "turn_finished") {
        t.status = "waiting";
        t.error = `call ${end.data?.callId} (${end.data?.toolName ?? "?"}) waits for a person (${end.type})`;
        break;
      }
      if (end.data.status !== "completed") {
        t.status = end.data.status;
        t.error = `turn ${end.data.status}${end.data.errorCode ? ` (${end.data.errorCode})` : ""}: ${end.data.error ?? ""}`;
        break;
      }
    }
    const [messages, calls, info, usage] = await Promise.all([client.messages(threadId), client.calls(threadId), client.getThread(threadId), client.usage(threadId)]);
    // The thread's ledger, as `weft usage` reads it: every request, retries included, estimated where the provider reported nothing.
    const total = usage.total;
    t.usage = { input: total.inputTokens, output: total.outputTokens, estimated: total.estimatedRequests, costUsd: total.unpricedRequests > 0 ? null : total.costUsd };
    t.messages = messages;
    t.calls = calls;
    for (const tool of info.tools ?? []) t.tools.set(tool.name, tool.inputSchema);
    // The case's history holds the thread's first messages: only what came after is the candidate's.
    const seeded = kase.history?.length ?? 0;
    const top = messages.filter((m) => !m.depth && m.id > seeded);
    t.requested = top.filter((m) => m.role === "assistant").flatMap((m) => (m.toolCalls ?? []).filter((/** @type {any} */ c) => !c.providerExecuted).map((/** @type {any} */ c) => ({ id: c.id, name: c.name, raw: c.arguments, arguments: parse(c.arguments) })));
    t.text = top.filter((m) => m.role === "assistant" && m.content).at(-1)?.content ?? "";
  } catch (err) {
    t.status = "error";
    t.error = err instanceof Error ? err.message : String(err);
  } finally {
    events?.close();
  }
  return t;
}

/**
 * Waits for the turn to finish, deciding each approval it asks for as the case says (`approve`
 * or `deny`, as the thread's owner would); with no such word, or for a parked call, the frame
 * that made it wait ends the wait.
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client @param {string} threadId
 * @param {any} events @param {"approve" | "deny" | undefined} approvals @param {number} from @param {number} timeoutMs
 */
async function untilTurnEnds(client, threadId, events, approvals, from, timeoutMs) {
  for (;;) {
    const end = await events.waitFor((/** @type {any} */ f) => f.type === "turn_finished" || f.type === "tool_call_approval_requested" || f.type === "tool_call_parked", timeoutMs, from);
    if (end.type !== "tool_call_approval_requested" || !approvals) return end;
    const { callId, argsHash } = end.data;
    if (approvals === "approve") await client.approve(threadId, callId, { argsHash });
    else await client.deny(threadId, callId, { reason: "denied by the eval case" });
    from = events.frames.indexOf(end) + 1;
  }
}

/** @param {string} text */
function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
