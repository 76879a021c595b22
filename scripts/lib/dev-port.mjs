// @ts-check
/**
 * What `npm start` checks before it starts `wrangler dev`: that no other `npm start` of the project
 * uses the same state directory (two workerd processes on one `.wrangler/state` fail with
 * SQLITE_BUSY and colliding writes), and that the port is free (wrangler would move to another
 * port on its own, while `WEFT_PUBLIC_URL`, the README's commands and OAuth redirects still name
 * the first one).
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { argValue } from "./dev-vars.mjs";

/** The example of a second start on its own port and state, for the messages below. */
const SECOND = "npm start -- --port 8795 --persist-to .wrangler/state-2";

/**
 * Why `npm start` cannot serve on `port` at `host`: something already answers there (another
 * `npm start`, or another program), or null when nothing does.
 * @param {string} host
 * @param {number} port
 * @returns {Promise<string | null>}
 */
export function portRefusal(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, autoSelectFamily: true });
    socket.once("connect", () => {
      socket.destroy();
      resolve(`weft: port ${port} is taken (another npm start, or another program): stop it, or serve on another port: npm start -- --port 8795`);
    });
    socket.once("error", () => resolve(null));
  });
}

/**
 * Takes the state directory of this start (`--persist-to`, else `.wrangler/state` in `root`) for
 * this process, or says which running process has it.
 * @param {string} root the project
 * @param {readonly string[]} args the arguments given to wrangler dev
 * @returns {{ release: () => void } | { refused: string }}
 */
export function takeState(root, args) {
  const dir = path.resolve(root, argValue(args, "persist-to") ?? ".wrangler/state");
  const file = path.join(dir, "weft-npm-start.pid");
  const holder = existsSync(file) ? Number(readFileSync(file, "utf8")) : NaN;
  if (Number.isInteger(holder) && holder !== process.pid && runningStart(holder)) {
    return { refused: `weft: another npm start of this project is running (pid ${holder}) on ${path.relative(root, dir) || dir}: two would share its databases; stop it, or give this one its own port and state: ${SECOND}` };
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, String(process.pid));
  const release = () => {
    if (existsSync(file) && readFileSync(file, "utf8") === String(process.pid)) rmSync(file, { force: true });
  };
  return { release };
}

/**
 * Whether process `pid` is a running `npm start` (scripts/start.mjs): it runs (a signal 0 reaches
 * it, or it exists under another user), and its command line, where this system shows one, names
 * start.mjs. A start that crashed, or whose terminal closed, leaves its pid in the file, and the
 * system gives that pid to other programs later (after a reboot, or in a container, soon): such a
 * program does not hold the state.
 * @param {number} pid
 */
function runningStart(pid) {
  if (!alive(pid)) return false;
  const command = commandLine(pid);
  return command === undefined || /(^|[\\/\s])start\.mjs(\s|$)/.test(command);
}

/**
 * The command line of process `pid` (Linux: /proc; macOS: ps), or undefined where it cannot be read.
 * @param {number} pid
 * @returns {string | undefined}
 */
function commandLine(pid) {
  try {
    if (process.platform === "linux") return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    if (process.platform === "darwin") return execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    // Hidden from this user, or gone since: the signal's answer stands.
  }
  return undefined;
}

/**
 * Whether process `pid` runs (a signal 0 reaches it, or it exists under another user).
 * @param {number} pid
 */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return /** @type {NodeJS.ErrnoException} */ (e).code === "EPERM";
  }
}
