#!/usr/bin/env node
// @ts-check
/**
 * `npm start`: `wrangler dev` in weft's development mode, with two things made readable.
 *
 * - Stack frames in the output point into wrangler's bundle; each is mapped back to its source
 *   file and line (scripts/lib/stack-map.mjs), so a failed tool call's stack ends at your code.
 *   The Worker asks this process for the same mapping (`WEFT_DEV_STACK_MAPPER`, a loopback URL),
 *   so a call record's `stack` read over HTTP names your source files too.
 * - Offline, wrangler cannot fetch the `Request.cf` object and prints a stack trace at every start
 *   and reload; weft does not read `request.cf`, so this says so once and turns that fetch off.
 *
 * It also says first which model threads talk to by default (`WEFT_MODEL`, or the scripted model),
 * fires the Worker's cron trigger as a deployment would (scripts/lib/dev-cron.mjs): wrangler dev
 * never fires one on its own, and file schedules (`agents/schedules/`) are taken up by it;
 * and it runs the example's remote MCP servers (scripts/example-mcp-server.mjs, `agents/mcp/almanac.ts`;
 * scripts/example-oauth-mcp-server.mjs, `agents/mcp/diary.ts`, behind OAuth) in this process, so
 * they end with weft (`WEFT_EXAMPLE_SERVERS=off` leaves them out: weft's own tests that run this
 * script beside the README tour, which runs the same servers on the same ports, set it). For OAuth it sets `WEFT_PUBLIC_URL` (http://localhost and the port) and a
 * development-only `WEFT_MCP_OAUTH_KEY`, unless `.dev.vars` sets them.
 *
 * Everything else is wrangler's output unchanged. Arguments are passed on to `wrangler dev`.
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fireCrons } from "./lib/dev-cron.mjs";
import { portRefusal, takeState } from "./lib/dev-port.mjs";
import { argValue, devOAuthArgs, loopbackArgs, modelLine } from "./lib/dev-vars.mjs";
import { relay, startStackMapper } from "./lib/stack-map.mjs";
import { EXAMPLE_MCP_PORT, startExampleMcp } from "./example-mcp-server.mjs";
import { EXAMPLE_OAUTH_MCP_PORT, startExampleOAuthMcp } from "./example-oauth-mcp-server.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

// `npm start -- --help`: wrangler dev's options, with nothing started.
if (process.argv.slice(2).some((a) => a === "--help" || a === "-h")) {
  process.exit(spawnSync(process.execPath, [wrangler, "dev", "--help"], { cwd: ROOT, stdio: "inherit" }).status ?? 1);
}

// Development mode acts as an admin for every request: refused at once on an address others reach.
const listening = loopbackArgs(process.argv.slice(2));
if ("refused" in listening) {
  console.error(listening.refused);
  process.exit(2);
}

// The port wrangler serves on (its default unless --port is given): free, and this project's state
// not held by another start, or wrangler moves to another port and the two share their databases.
const args = listening.args;
const port = argValue(args, "port") ?? "8787";
const state = takeState(ROOT, args);
const refused = "refused" in state ? state.refused : await portRefusal(String(argValue(args, "ip")).replace(/^\[|\]$/g, ""), Number(port));
if (refused !== null) {
  if ("release" in state) state.release();
  console.error(refused);
  process.exit(2);
}

const env = { ...process.env };
if (env.CLOUDFLARE_CF_FETCH_ENABLED === undefined) {
  const online = await Promise.race([
    lookup("workers.cloudflare.com").then(() => true, () => false),
    new Promise((resolve) => setTimeout(() => resolve(false), 1500)),
  ]);
  if (!online) {
    env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
    console.log("weft: offline, so wrangler's Request.cf is its placeholder (expected: weft does not read request.cf)");
  }
}
if (process.stdout.isTTY && env.FORCE_COLOR === undefined) env.FORCE_COLOR = "1";

console.log(modelLine(ROOT));
if (process.env.WEFT_EXAMPLE_SERVERS !== "off") {
  try {
    const almanac = await startExampleMcp();
    console.log(`weft: the example's MCP server (agents/mcp/almanac.ts) is on ${almanac.url}`);
  } catch (e) {
    // Another project's npm start holds it (or another program the port): weft runs; almanac calls reach whoever answers there.
    console.log(`weft: the example's MCP server did not start: port ${EXAMPLE_MCP_PORT}: ${e instanceof Error ? e.message : e} (another npm start's, if one runs: almanac calls reach that one)`);
  }

  try {
    const diary = await startExampleOAuthMcp();
    console.log(`weft: the example's MCP server behind OAuth (agents/mcp/diary.ts) is on ${diary.url}`);
  } catch (e) {
    console.log(`weft: the example's MCP server behind OAuth did not start: port ${EXAMPLE_OAUTH_MCP_PORT}: ${e instanceof Error ? e.message : e}`);
  }
}
const mapper = await startStackMapper(ROOT);
const child = spawn(process.execPath, [wrangler, "dev", "--var", "WEFT_DEV_MODE:on", "--var", `WEFT_DEV_STACK_MAPPER:${mapper.url}`, ...devOAuthArgs(ROOT, `http://localhost:${port}`), ...args], {
  cwd: ROOT,
  env,
  stdio: ["inherit", "pipe", "pipe"],
});
relay(ROOT, /** @type {NodeJS.ReadableStream} */ (child.stdout), process.stdout);
relay(ROOT, /** @type {NodeJS.ReadableStream} */ (child.stderr), process.stderr);
const stopCrons = fireCrons(ROOT, /** @type {NodeJS.ReadableStream} */ (child.stdout), process.argv.slice(2));
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  if ("release" in state) state.release();
  stopCrons();
  mapper.close();
  process.exit(code ?? (signal ? 1 : 0));
});
