// @ts-check
/**
 * `weft eval --from-threads <ids>`: stored threads become eval cases. Each top-level user message
 * is one case, pinned with `asOf` at the time it was sent, expecting the tool calls (names and
 * arguments, in order) the model asked for before the next user message. Everything is read
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
 * @param {ReturnType<import("./client.mjs").evalClient>} client @param {string} spec
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
 * @param {ReturnType<import("./client.mjs").evalClient>} client
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
  const top = messages.filter((m) => !m.depth && !m.silent);
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
      agent: info.agentId,
      ...(info.arguments && Object.keys(info.arguments).length > 0 ? { arguments: info.arguments } : {}),
      asOf: new Date(m.createdAt).toISOString(),
      expect: { toolCalls, trajectory: toolCalls.map((c) => c.name) },
    });
  });
  return out;
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
