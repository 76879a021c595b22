// @ts-check
/**
 * `weft eval --from-threads <ids>`: stored threads become eval cases. Each top-level user message
 * is one case, pinned with `asOf` at the time it was sent, starting from the conversation before it
 * (`history`), expecting the tool calls (names and arguments, in order) the model asked for before
 * the next user message. Everything is read
 * through the thread routes as the caller, so weft's own rule decides who may export: the owner,
 * or an admin (reads); anyone else gets `thread_not_found`. What the routes return is already
 * redacted of every secret the thread holds, and no env value is exported (the routes give
 * none); the written cases name no env, so secrets never leave.
 * @module
 */

/**
 * The thread ids a `--from-threads` value names: comma-separated items, each a thread id,
 * `latest:<n>` (the caller's n newest threads) or `agent:<name>` (every thread of the caller's
 * that runs that agent, newest first, at most 1000). Ids are kept in the order given, once each.
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client @param {string} spec
 * @returns {Promise<string[]>}
 */
export async function resolveThreadIds(client, spec) {
  const items = spec.split(",").map((s) => s.trim()).filter(Boolean);
  /** @type {Array<{ threadId: string, agentId: string }> | null} */
  let mine = null;
  const listMine = async () => {
    if (mine) return mine;
    mine = [];
    for (let cursor = ""; mine.length < 1000; ) {
      const page = await client.listThreads({ limit: 200, ...(cursor ? { cursor } : {}) });
      mine.push(...page.threads);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return mine;
  };
  /** @type {string[]} */
  const ids = [];
  for (const item of items) {
    const latest = /^latest:(\d+)$/.exec(item);
    const agent = /^agent:(.+)$/.exec(item);
    if (latest) ids.push(...(await listMine()).slice(0, Number(latest[1])).map((t) => t.threadId));
    else if (agent) ids.push(...(await listMine()).filter((t) => t.agentId === agent[1]).map((t) => t.threadId));
    else ids.push(item);
  }
  return [...new Set(ids)];
}

/**
 * Reads `threadIds` and builds their cases.
 * @param {ReturnType<typeof import("./client.mjs").evalClient>} client
 * @param {string[]} threadIds
 * @returns {Promise<import("./suite.mjs").Case[]>}
 * @throws Error naming the thread and weft's code when a thread cannot be read (not the
 *   caller's: `thread_not_found`); nothing is written then
 */
export async function casesFromThreads(client, threadIds) {
  const cases = [];
  for (const id of threadIds) {
    let info;
    let messages;
    try {
      info = await client.getThread(id);
      messages = await client.messages(id);
    } catch (err) {
      const e = /** @type {any} */ (err);
      const refusal = e?.status ? `GET /threads/${id} -> ${e.status} ${e.code}: ${e.message}` : (e?.message ?? String(err));
      throw Object.assign(new Error(`thread ${id} cannot be exported: ${refusal}`), { code: e?.code || "thread_not_found" });
    }
    cases.push(...threadCases(info, messages));
  }
  return cases;
}

/**
 * The cases of one thread (pure; exported for tests).
 * @param {{ threadId: string, agentId: string, arguments?: Record<string, unknown> }} info
 * @param {any[]} messages oldest first
 * @returns {import("./suite.mjs").Case[]}
 */
export function threadCases(info, messages) {
  const conversation = messages.filter((m) => !m.depth);
  const top = conversation.filter((m) => !m.silent);
  /** @type {import("./suite.mjs").Case[]} */
  const out = [];
  top.forEach((m, i) => {
    if (m.role !== "user") return;
    const next = top.findIndex((x, j) => j > i && x.role === "user");
    const turn = top.slice(i + 1, next === -1 ? undefined : next);
    const toolCalls = turn
      .filter((x) => x.role === "assistant")
      .flatMap((x) => (x.toolCalls ?? []).filter((/** @type {any} */ c) => !c.providerExecuted))
      .map((/** @type {any} */ c) => ({ name: c.name, arguments: parseArgs(c.arguments) }));
    out.push({
      id: `${info.threadId}#${m.id}`,
      messages: [m.content],
      ...historyOf(conversation.filter((x) => x.id < m.id)),
      agent: info.agentId,
      ...(info.arguments && Object.keys(info.arguments).length > 0 ? { arguments: info.arguments } : {}),
      asOf: new Date(m.createdAt).toISOString(),
      expect: { toolCalls, trajectory: toolCalls.map((c) => c.name) },
    });
  });
  return out;
}

/** What a model's request gives a call with no recorded result (`MISSING_RESULT` in src/models/history.ts; a test holds them equal). */
const MISSING_RESULT = "error: no result was recorded for this call";

/**
 * The conversation before a case's message, as its model saw it, in the shape `POST /threads`
 * takes as `history` (silent messages included: the model saw them): each call's result right
 * after its assistant message (a call whose result was never recorded gets the error text the
 * model got), a result whose call is not in the conversation as the user note it became, call ids
 * made unique (a model may reuse one), and calls the provider ran itself left out (weft holds no
 * result message for them).
 * @param {any[]} earlier oldest first
 * @returns {{ history?: any[] }}
 */
export function historyOf(earlier) {
  /** @type {Map<string, any[]>} */
  const results = new Map();
  for (const m of earlier) if (m.role === "tool" && m.toolCallId !== undefined) results.set(m.toolCallId, [...(results.get(m.toolCallId) ?? []), m]);
  const used = new Set();
  const ids = new Set();
  const history = [];
  for (const m of earlier) {
    if (m.role === "assistant") {
      const calls = (m.toolCalls ?? []).filter((/** @type {any} */ c) => !c.providerExecuted);
      /** @type {Array<{ call: { id: string, name: string, arguments: string }, content: string, isError: boolean }>} */
      const answered = calls.map((/** @type {any} */ c) => {
        const result = results.get(c.id)?.find((r) => !used.has(r));
        if (result) used.add(result);
        let id = c.id;
        for (let n = 2; ids.has(id); n++) id = `${c.id}~${n}`;
        ids.add(id);
        return { call: { id, name: c.name, arguments: c.arguments }, content: result ? result.content : MISSING_RESULT, isError: result ? result.isError === true : true };
      });
      history.push({ role: "assistant", content: m.content, ...(answered.length > 0 ? { toolCalls: answered.map((a) => a.call) } : {}) });
      for (const a of answered) history.push({ role: "tool", toolCallId: a.call.id, name: a.call.name, content: a.content, ...(a.isError ? { isError: true } : {}) });
    } else if (m.role === "tool") {
      if (!used.has(m)) history.push({ role: "user", content: `[result of an earlier call${m.name ? ` to ${m.name}` : ""}]: ${m.content}` });
    } else history.push({ role: m.role, content: m.content });
  }
  return history.length > 0 ? { history } : {};
}

/** @param {string} text */
function parseArgs(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
