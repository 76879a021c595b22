/**
 * Starts `wrangler dev` (the project's own wrangler, on the Node running this script) on free
 * loopback ports, waits until it serves HTTP, and stops it with its whole process group.
 * Shared by the bfcl harness and the e2e suite.
 * @module
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { cpSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname, relative, isAbsolute, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { devOAuthArgs } from "./dev-vars.mjs";

/** The repository root (two levels above this file). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Asks the OS for a free TCP port on 127.0.0.1. The port is released before returning, so another
 * process may take it first (test files start servers in parallel): `startDevServer` retries then.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * @typedef {object} DevServer
 * @property {string} url base URL, `http://127.0.0.1:<port>`
 * @property {number} port
 * @property {string} logFile wrangler's combined stdout/stderr
 * @property {() => string} logTail the last lines of the log, for error messages
 * @property {() => Promise<void>} stop terminates the process group (SIGTERM, then SIGKILL
 *   after 5 s) and removes the snapshot and the temporary Durable Object state (the log and a
 *   `persistTo` folder stay); safe to call twice
 */

/**
 * Starts `wrangler dev --config <config>` and resolves once wrangler says it is ready on its port
 * and `GET readyPath` answers (any status); a port taken meanwhile by another process is retried
 * on new ports (three starts at most).
 * State persists to a fresh temporary folder, so every start sees empty Durable Objects, unless
 * `persistTo` names a folder: then state is read from and left in it, so a later start on the
 * same folder sees the same Durable Objects (a restart).
 *
 * By default wrangler runs on a snapshot: a copy of `cwd` (without node_modules, .git, .wrangler,
 * dist and the local env files `.dev.vars` and `.env`; node_modules is linked) taken at start. wrangler dev always watches its sources and
 * reloads on a change, which drops every WebSocket; a snapshot keeps a long run immune to edits
 * made meanwhile. `snapshot: false` serves `cwd` itself (live reload). `devOAuth` sets what OAuth
 * connections need as `npm start` does (scripts/lib/dev-vars.mjs `devOAuthArgs`), with this server's address.
 * @param {{ config: string, cwd?: string, readyPath?: string, timeoutMs?: number,
 *   logFile?: string, env?: Record<string, string>, extraArgs?: string[], persistTo?: string,
 *   snapshot?: boolean, devOAuth?: boolean }} options
 *   `config` is relative to `cwd` (default: the repository root); `timeoutMs` defaults to 90 000
 * @returns {Promise<DevServer>}
 * @throws Error with the log tail when wrangler exits early or does not serve in time
 */
export async function startDevServer(options) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (e) {
      // A port `freePort` gave was taken before wrangler bound it: try again on new ports.
      if (!(e instanceof PortTaken) || attempt === 3) throw e;
    }
  }
}

/** wrangler dev exited because its port or inspector port was taken meanwhile. */
class PortTaken extends Error {}

/** One start of `startDevServer`, on ports fresh from `freePort`. */
async function startOnce(options) {
  const cwd = options.cwd ?? REPO_ROOT;
  const timeoutMs = options.timeoutMs ?? 90_000;
  const stateDir = mkdtempSync(join(tmpdir(), "weft-dev-"));
  const persistDir = options.persistTo !== undefined ? resolve(cwd, options.persistTo) : join(stateDir, "state");
  const root = options.snapshot === false ? cwd : takeSnapshot(cwd, join(stateDir, "snapshot"));
  const config = isAbsolute(options.config) && isInside(cwd, options.config) ? join(root, relative(cwd, options.config)) : options.config;
  const logFile = options.logFile ?? join(stateDir, "wrangler.log");
  const port = await freePort();
  let inspectorPort = await freePort();
  while (inspectorPort === port) inspectorPort = await freePort();
  const wrangler = join(cwd, "node_modules", "wrangler", "bin", "wrangler.js");
  const args = [
    wrangler, "dev",
    // Development mode, as `npm start` runs it (only on loopback, only while no auth is configured).
    "--var", "WEFT_DEV_MODE:on",
    "--config", config,
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--inspector-port", String(inspectorPort),
    "--persist-to", persistDir,
    "--show-interactive-dev-session=false",
    "--log-level", "log",
    ...(options.devOAuth ? devOAuthArgs(root, `http://127.0.0.1:${port}`) : []),
    ...(options.extraArgs ?? []),
  ];
  const fd = openSync(logFile, "a");
  // Own process group (detached), so stop() can end wrangler and workerd together. Its log and its
  // dev registry (where wrangler dev lists the workers it serves by name, ~/.config/.wrangler/registry
  // by default) are its own: every start here serves a worker named "weft", and two runs side by
  // side would otherwise write and remove each other's entry.
  const child = spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", fd, fd],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1", FORCE_COLOR: "0", WRANGLER_LOG_PATH: stateDir, WRANGLER_REGISTRY_PATH: join(stateDir, "registry"), ...options.env },
  });
  closeSync(fd);
  let exited = /** @type {null | string} */ (null);
  const exit = new Promise((done) => child.once("exit", (code, signal) => done((exited = `exited (${signal ?? code})`))));
  const url = `http://127.0.0.1:${port}`;
  const logTail = () => tail(logFile, 40);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", killSync);
    if (exited === null) {
      signalGroup(child.pid, "SIGTERM");
      const timer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), 5_000);
      await exit;
      clearTimeout(timer);
    }
    signalGroup(child.pid, "SIGKILL"); // stragglers (workerd) left in the group
    // logs stay for debugging; a caller's persistTo folder stays for the next start
    if (options.persistTo === undefined) rmSync(persistDir, { recursive: true, force: true, maxRetries: 3 });
    if (root !== cwd) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
  // Last resort if the parent exits without calling stop(): never leave workerd running.
  const killSync = () => signalGroup(child.pid, "SIGKILL");
  process.on("exit", killSync);

  const deadline = Date.now() + timeoutMs;
  while (true) {
    if (exited !== null) {
      const log = logTail();
      await stop();
      throw new (/Address already in use/.test(log) ? PortTaken : Error)(`wrangler dev ${exited} before serving ${url}\n${log}`);
    }
    // Only this wrangler's answer counts: another server that took the port first answers too.
    if (tail(logFile, 200).includes(`Ready on ${url}`)) {
      try {
        const res = await fetch(url + (options.readyPath ?? "/"), { signal: AbortSignal.timeout(2_000) });
        await res.arrayBuffer();
        break;
      } catch {
        // not serving yet
      }
    }
    if (Date.now() > deadline) {
      const log = logTail();
      await stop();
      throw new Error(`wrangler dev did not serve ${url} within ${timeoutMs} ms\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, logFile, logTail, stop };
}

// Top-level entries never copied into a snapshot (node_modules is linked instead).
const NOT_COPIED = new Set(["node_modules", ".git", ".wrangler", "dist"]);

/**
 * The author's local env files (`.dev.vars`, `.dev.vars.<env>`, `.env`, `.env.<env>`), which
 * wrangler dev reads: a model or key set there would change what a run of weft's own checks sees
 * (a posted script is refused once a model is configured). A fresh clone has none; a snapshot and
 * a project copy leave them out, so a test gives its env explicitly (`--var`).
 * @param {string} name a top-level file name
 */
export function isLocalEnvFile(name) {
  return /^\.dev\.vars(\..+)?$|^\.env(\..+)?$/.test(name);
}

/** Copies `from` to `to` for wrangler to build from, linking node_modules. @returns `to` */
function takeSnapshot(from, to) {
  cpSync(from, to, {
    recursive: true,
    filter: (src) => {
      const rel = relative(from, src);
      const top = rel.split(sep)[0];
      return rel === "" || (!NOT_COPIED.has(top) && !(rel === top && isLocalEnvFile(top)) && !rel.split(sep).includes(".wrangler"));
    },
  });
  symlinkSync(join(from, "node_modules"), join(to, "node_modules"), "dir");
  return to;
}

/** True when `path` is `dir` or inside it. */
function isInside(dir, path) {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Sends a signal to a whole process group; ignores a group that is already gone. */
function signalGroup(pid, signal) {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** The last `n` lines of a file, or "" when it cannot be read. */
function tail(file, n) {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-n).join("\n");
  } catch {
    return "";
  }
}
