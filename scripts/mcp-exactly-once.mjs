/**
 * `npm run mcp-exactly-once -- [--calls 500] [--per-thread 5] [--concurrency 8] [--caller-crash-rate 0.06] [--callee-crash-rate 0.06] [--verbose]`
 *
 * A weft calls another weft through `agents/mcp/`: two `wrangler dev` instances of the test
 * worker (test/worker.ts). The caller's agent `peer_caller` offers `peer.peer_write`
 * (test/fixtures/mcp/peer.ts), whose host the caller's worker sends to the callee's URL; the callee
 * serves it from `POST /mcp` as the direct call of test/fixtures/tools/peer_write.ts, which records
 * every run on the callee's outside ledger under the call's label. Both threads' Durable Objects
 * crash at random points of the call pipeline (each point reached crashes with the given rate,
 * counted on each side's ledger; at most 2 per thread, as a third restart during one call's run
 * is a crash loop that weft ends on purpose), and recover by their own alarms.
 *
 * Measured, never assumed: a write run twice is a label the callee's ledger counts more than once;
 * a call without exactly one result is one whose caller thread does not hold exactly one tool
 * message and a succeeded record answering its own label after a run the callee counted once; a
 * parked call is one the caller parked (or whose answer says the callee's call waits for a person). Reconciled calls
 * are those whose one result came back after a crash or a retry cut the first attempt (the caller
 * sent the call again with its effect key, or the callee reconciled its own write).
 * Prints one `mcp-exactly-once:` line; exits 1 when any of those counts is not 0.
 * @module
 */
import { startDevServer } from "./lib/dev-server.mjs";

const TOKEN = "test-key-tester"; // the test worker's tester key (test/helpers.ts API_KEYS)

function parseArgs(argv) {
  const opts = { calls: 500, perThread: 5, concurrency: 8, callerRate: 0.06, calleeRate: 0.06, verbose: false, timeoutMs: 120_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error(`${a} needs a number`);
      return v;
    };
    if (a === "--calls") opts.calls = num();
    else if (a === "--per-thread") opts.perThread = Math.max(1, num());
    else if (a === "--concurrency") opts.concurrency = Math.max(1, num());
    else if (a === "--caller-crash-rate") opts.callerRate = num();
    else if (a === "--callee-crash-rate") opts.calleeRate = num();
    else if (a === "--verbose") opts.verbose = true;
    else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** JSON over HTTP to one weft as the tester; answers `{ status, body }` (a cut connection is status 0). */
function clientOf(base) {
  return async (method, path, body, headers = {}) => {
    try {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      let parsed;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: res.status, body: parsed };
    } catch (e) {
      return { status: 0, body: String(e) };
    }
  };
}

/** Sends a request with an Idempotency-Key until it gets a 2xx (a crash may cut any one try). */
async function reliably(http, method, path, body, key, what) {
  const end = Date.now() + 60_000;
  for (;;) {
    const answer = await http(method, path, body, { "idempotency-key": key });
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    if (Date.now() > end) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    await sleep(100);
  }
}

/**
 * Waits until the caller's thread is at rest (no turn running, no call started or queued), as
 * test/crash/matrix.ts waitAtRest does; returns its calls and messages, or a reason it is not.
 */
async function atRest(http, threadId, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const info = await http("GET", `/threads/${threadId}`);
    const calls = await http("GET", `/threads/${threadId}/calls`);
    const busy =
      info.status !== 200 ||
      calls.status !== 200 ||
      info.body.status === "running" ||
      info.body.lastTurn?.status === "running" ||
      calls.body.calls.some((c) => c.status === "started" || c.status === "queued");
    if (!busy) {
      const messages = await http("GET", `/threads/${threadId}/messages?limit=1000&includeSilent=true`);
      if (messages.status === 200) return { calls: calls.body.calls, messages: messages.body.messages, info: info.body };
    }
    if (Date.now() > end) return `not at rest after ${timeoutMs} ms: ${info.status === 200 ? info.body.status : info.status}; calls ${calls.status === 200 ? calls.body.calls.map((c) => `${c.callId}:${c.status}`).join(" ") : calls.status}`;
    await sleep(100);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const began = Date.now();
  const run = Math.random().toString(36).slice(2, 8);
  // One scratch thread per keyed call on the callee, one thread per batch on the caller.
  const lift = ["--var", "WEFT_MAX_THREADS_PER_USER:1000000"];
  const callee = await startDevServer({ config: "test/wrangler.toml", extraArgs: [...lift, "--var", `WEFT_TEST_CRASH_RATE:${opts.calleeRate}`] });
  let caller = null;
  const stop = async () => {
    await caller?.stop();
    await callee.stop();
  };
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void stop().finally(() => process.exit(130)));
  try {
    caller = await startDevServer({
      config: "test/wrangler.toml",
      extraArgs: [...lift, "--var", `WEFT_TEST_CRASH_RATE:${opts.callerRate}`, "--var", `WEFT_TEST_MCP_ROUTES:${JSON.stringify({ "peer.mcp.test": callee.url })}`, "--var", `PEER_MCP_TOKEN:${TOKEN}`],
    });
    console.error(`mcp-exactly-once: caller ${caller.url} (log ${caller.logFile}), callee ${callee.url} (log ${callee.logFile})`);
    const callerHttp = clientOf(caller.url);
    const calleeHttp = clientOf(callee.url);

    const threads = Math.ceil(opts.calls / opts.perThread);
    const labels = [];
    const problems = [];
    let writesTwice = 0;
    let withoutOne = 0;
    let parked = 0;
    let reconciled = 0;
    let done = 0;
    let next = 0;
    const ticker = setInterval(() => console.error(`mcp-exactly-once: ${done}/${threads} threads checked`), 15_000);
    const lane = async () => {
      while (next < threads) {
        const t = next++;
        const count = Math.min(opts.perThread, opts.calls - t * opts.perThread);
        const calls = Array.from({ length: count }, (_, i) => ({ id: `w${i + 1}`, label: `${run}-t${t}-w${i + 1}` }));
        labels.push(...calls.map((c) => c.label));
        const { threadId } = await reliably(callerHttp, "POST", "/threads", { agent: "peer_caller" }, `${run}-thread-${t}`, `thread ${t}`);
        const script = [{ toolCalls: calls.map((c) => ({ id: c.id, name: "peer__peer_write", arguments: { label: c.label } })) }, { text: "done" }];
        await reliably(callerHttp, "POST", `/threads/${threadId}/messages`, { content: "write", script }, `${run}-message-${t}`, `thread ${t} message`);
        const rest = await atRest(callerHttp, threadId, opts.timeoutMs);
        if (typeof rest === "string") {
          problems.push(`thread ${t} (${threadId}): ${rest}`);
          withoutOne += count;
          done++;
          continue;
        }
        for (const c of calls) {
          const record = rest.calls.find((r) => r.callId === c.id);
          const messages = rest.messages.filter((m) => m.toolCallId === c.id).length;
          const { runs } = (await calleeHttp("GET", `/__test/ledger/${encodeURIComponent(`label:${c.label}`)}`)).body ?? { runs: -1 };
          const text = record?.result?.result ?? record?.result?.error ?? "";
          if (runs > 1) writesTwice++;
          const isParked = record?.status === "parked" || /waiting for a person/.test(text);
          if (isParked) parked++;
          let answer = null;
          try {
            answer = JSON.parse(text);
          } catch {
            answer = null;
          }
          const ownAnswer = answer !== null && (answer.label === c.label || answer.reconciled === true);
          const one = messages === 1 && record?.status === "succeeded" && record.result?.status === "success" && ownAnswer && runs === 1;
          if (!one) {
            withoutOne++;
            problems.push(`${c.label} (thread ${threadId}, call ${c.id}): ${messages} tool message(s), record ${record?.status ?? "missing"} ${JSON.stringify(record?.result ?? null).slice(0, 300)}, callee ran it ${runs} time(s)`);
          } else if (answer.reconciled === true || (record.attempts ?? 1) > 1 || (record.restarts ?? 0) > 0) reconciled++;
        }
        done++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, threads) }, lane));
    clearInterval(ticker);

    const crashes = async (http) => (await http("GET", "/__test/ledger/crashes")).body?.runs ?? "?";
    for (const p of problems) console.error(`off: ${p}`);
    console.error(`mcp-exactly-once: crashes injected: ${await crashes(callerHttp)} in the caller, ${await crashes(calleeHttp)} in the callee; ${((Date.now() - began) / 1000).toFixed(1)} s`);
    console.log(`mcp-exactly-once: ${labels.length} calls, ${writesTwice} writes run twice, ${withoutOne} calls without exactly one result, ${reconciled} reconciled, ${parked} parked`);
    return writesTwice === 0 && withoutOne === 0 && parked === 0 && labels.length === opts.calls ? 0 : 1;
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`mcp-exactly-once: ${err instanceof Error ? err.stack : err}`);
    process.exit(2);
  },
);
