/**
 * `npm run bfcl -- [folder] [--url <base> [--token <bearer>]] [--via openai|anthropic|mcp] [--concurrency <n>] [--timeout-ms <n>] [--verbose]`
 *
 * `--via <provider>` plays each case's model steps from a fake provider server streaming them in
 * that provider's wire format, through weft's AI SDK adapter, instead of the scripted model.
 * `--via mcp` keeps the scripted model and serves each case's tools from a remote MCP server (the
 * MCP SDK's, in this process: scripts/bfcl/mcp.mjs) that weft calls as remote tools.
 *
 * Plays every case of a BFCL folder (default `../shared/data/bfcl` from the repo root) through a
 * live weft (`wrangler dev --config test/wrangler.toml`, or `--url` of one already running) and
 * prints one line per category and a last `bfcl:` line. Any disagreement with the reference
 * validator is printed with the case id and reason, and the exit status is 1.
 * @module
 */
import { resolve } from "node:path";
import { loadFolder } from "./bfcl/data.mjs";
import { createClient } from "./bfcl/client.mjs";
import { createReference } from "./bfcl/reference.mjs";
import { AGENT, STRICT_NULL_NOTE, addTally, emptyTally, formatTally, runCase, tallyComplete } from "./bfcl/harness.mjs";
import { VIA, viaProvider } from "./bfcl/via.mjs";
import { MCP_HOST, MCP_PREFIX, serveBfclMcp } from "./bfcl/mcp.mjs";
import { REPO_ROOT, startDevServer } from "./lib/dev-server.mjs";

function parseArgs(argv) {
  const opts = { folder: resolve(REPO_ROOT, "../shared/data/bfcl"), url: null, token: null, via: null, concurrency: 6, timeoutMs: 30_000, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--url") opts.url = value();
    else if (a === "--via") opts.via = value();
    else if (a === "--token") opts.token = value();
    else if (a === "--concurrency") opts.concurrency = Math.max(1, Number.parseInt(value(), 10) || 1);
    else if (a === "--timeout-ms") opts.timeoutMs = Number.parseInt(value(), 10) || opts.timeoutMs;
    else if (a === "--verbose") opts.verbose = true;
    else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else opts.folder = resolve(process.cwd(), a);
  }
  return opts;
}

/**
 * `--via mcp`: each thread is made for the `bfcl_mcp` agent, its case's functions registered on
 * the MCP server under a token of its own, which its env gives weft as the server's bearer token.
 */
function viaMcp(client, mcp) {
  return {
    close: async () => undefined,
    client: {
      ...client,
      createThread: (body) => client.createThread({ agent: "bfcl_mcp", env: { BFCL_MCP_TOKEN: { value: mcp.register(body.arguments.functions), type: "secret" } } }),
    },
  };
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool(items, limit, work) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  });
  await Promise.all(lanes);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const began = Date.now();
  const categories = await loadFolder(opts.folder);
  const total = categories.reduce((n, c) => n + c.cases.length, 0);
  console.error(`bfcl: ${total} cases in ${categories.length} categories from ${opts.folder}`);

  // One thread per case, all as the test user: lift the per-user thread limit for this run.
  // --via mcp: the tools' server first, so the test worker can be told where its host is.
  const mcp = opts.via === "mcp" ? await serveBfclMcp() : null;
  const routes = mcp ? ["--var", `WEFT_TEST_MCP_ROUTES:${JSON.stringify({ [MCP_HOST]: mcp.url })}`] : [];
  const server = opts.url ? null : await startDevServer({ config: "test/wrangler.toml", extraArgs: ["--var", "WEFT_MAX_THREADS_PER_USER:1000000", ...routes] });
  const stopServer = async () => {
    await server?.stop();
    await mcp?.close();
  };
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => void stopServer().finally(() => process.exit(130)));
  }
  /** @type {Awaited<ReturnType<typeof viaProvider>> | null} */
  let via = null;
  try {
    const url = opts.url ?? server.url;
    // The test worker requires authentication; its tester key comes from test/helpers.ts (API_KEYS).
    const token = opts.token ?? (server ? "test-key-tester" : null);
    const about = await fetch(url + "/", { headers: token ? { authorization: `Bearer ${token}` } : {} }).then((r) => r.json()).catch(() => ({}));
    if (!Array.isArray(about.agents) || !about.agents.includes(AGENT)) {
      throw new Error(`${url} does not register the "${AGENT}" fixture agent (agents: ${JSON.stringify(about.agents)})`);
    }
    console.error(`bfcl: weft at ${url}${server ? ` (log: ${server.logFile})` : ""}; concurrency ${opts.concurrency}`);
    const direct = createClient(url, token);
    via = mcp ? viaMcp(direct, mcp) : opts.via ? await viaProvider(direct, opts.via) : null;
    if (mcp) console.error(`bfcl: tools served by an MCP server at ${mcp.url}, called through weft as ${MCP_PREFIX}<name>`);
    else if (via) console.error(`bfcl: model steps streamed by a fake ${opts.via} server at ${via.url}`);
    const client = via ? via.client : direct;
    const reference = createReference();
    const tallies = new Map(categories.map((c) => [c.name, emptyTally()]));
    const failures = categories.flatMap((c) => c.problems.map((p) => `${c.name}: data: ${p}`));
    for (const f of failures) console.error(`FAIL ${f}`);
    const notes = [];
    const work = categories.flatMap((c) => c.cases.map((kase) => ({ category: c, kase })));
    let done = 0;
    const ticker = setInterval(() => console.error(`bfcl: ${done}/${work.length} cases`), 15_000);
    await pool(work, opts.concurrency, async ({ category, kase }) => {
      const r = await runCase(client, kase, category.irrelevance, reference, { turnTimeoutMs: opts.timeoutMs, strictNulls: opts.via ? VIA[opts.via]?.strict === true : false, prefix: mcp ? MCP_PREFIX : "" });
      addTally(tallies.get(category.name), r.tally);
      for (const f of r.failures) {
        failures.push(`${category.name}: ${f}`);
        console.error(`FAIL ${category.name}: ${f}`);
      }
      notes.push(...r.notes);
      done++;
    });
    clearInterval(ticker);

    // Counted, never silent: what the run reads in its own way. Schemas reach weft as published.
    const unknownTypes = notes.filter((n) => n.includes("unknown type")).length;
    const badDefaults = notes.filter((n) => n.includes("default kept as published")).length;
    console.log(`bfcl: note: ${unknownTypes} unknown type names read as no constraint; ${badDefaults} defaults that fail their own schema kept as published; neither weft nor the reference applies them`);
    const strictNulls = notes.filter((n) => n.includes(STRICT_NULL_NOTE)).length;
    if (strictNulls > 0) console.log(`bfcl: note: ${strictNulls} invalid variants (null for an optional key) played as valid calls: --via ${opts.via} sends strict function schemas, where optional keys are nullable and null means absent`);
    if (opts.verbose) for (const n of notes) console.error(`  ${n}`);
    const overall = emptyTally();
    for (const c of categories) {
      const t = tallies.get(c.name);
      addTally(overall, t);
      console.log(formatTally(c.name, t));
    }
    console.log(formatTally("bfcl", overall));
    console.error(`bfcl: ${failures.length} disagreement(s); ${((Date.now() - began) / 1000).toFixed(1)} s`);
    // The variants must outnumber the valid calls three to one, or the refusal side is thin.
    const enoughVariants = overall.variants[1] >= 3 * overall.valid[1];
    if (!enoughVariants) console.error(`bfcl: only ${overall.variants[1]} invalid variants for ${overall.valid[1]} valid calls (want at least three times as many)`);
    return failures.length === 0 && tallyComplete(overall) && enoughVariants ? 0 : 1;
  } finally {
    await via?.close();
    await stopServer();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bfcl: ${err instanceof Error ? err.message : err}`);
    process.exit(2);
  },
);
