// @ts-check
/**
 * Builds each bench/compare target with `wrangler deploy --dry-run` and serves it with the workerd
 * binary that wrangler ships, from a generated capnp config (no `wrangler dev` proxy in between).
 * Durable Object storage is SQLite on local disk in a fresh temporary folder.
 * @module
 */
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout this harness belongs to. */
const HARNESS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The workerd binary of the `workerd` package that the project's wrangler depends on. */
export function workerdBinary(root) {
  const fromWrangler = createRequire(path.join(root, "node_modules/wrangler/package.json"));
  return path.join(path.dirname(fromWrangler.resolve("workerd/package.json")), "bin", "workerd");
}

/** Bundles a target: `wrangler deploy --dry-run --outdir`, returning the folder and the main module's name. */
export function bundle(root, target, outdir) {
  if (path.resolve(root) !== HARNESS_ROOT) useThisHarness(root, target);
  const wrangler = path.join(root, "node_modules/wrangler/bin/wrangler.js");
  const config = path.join(root, "bench/compare/wrangler", `${target}.toml`);
  execFileSync(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outdir, "--config", config], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  const files = readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "README.md");
  return { outdir, main: `${target}.js`, files };
}

/**
 * Gives another checkout (a `--base` tree) this harness's target entry points and their config,
 * so both weft builds carry the same instrumentation (the row counter wraps every SQL cursor; a
 * tree older than the counter has none) and a weft/base figure compares weft's code alone.
 * Overwrites `bench/compare/targets/` and the target's `.toml` in `root`.
 */
function useThisHarness(root, target) {
  cpSync(path.join(HARNESS_ROOT, "bench/compare/targets"), path.join(root, "bench/compare/targets"), { recursive: true });
  cpSync(path.join(HARNESS_ROOT, "bench/compare/wrangler", `${target}.toml`), path.join(root, "bench/compare/wrangler", `${target}.toml`));
}

/**
 * A target: its name, its bundle (bench/compare/wrangler/<bundle or name>.toml), its Durable Objects
 * (the first is its threads' class) and vars, and where its outbound fetches go (`outbound`, a
 * loopback `host:port`: every fetch the Worker makes reaches that server; unset, workerd's default).
 * @typedef {{ name: string, bundle?: string, durableObjects: Array<{ binding: string, className: string }>, vars?: Record<string, string>, outbound?: string }} TargetSpec
 */

/** A Durable Object class's `uniqueKey`, which is also the folder of its SQLite files in the target's `disk`. */
export const namespaceKey = (spec, className) => `bench-${spec.name}-${className}`;

/** The folder of the SQLite files of a target's threads: its first Durable Object class. */
export const threadStorage = (server) => path.join(server.disk, namespaceKey(server.spec, server.spec.durableObjects[0].className));

/** The capnp config serving one bundle on 127.0.0.1:port. */
export function capnpConfig(spec, built, port, diskDir) {
  const modules = [built.main, ...built.files.filter((f) => f !== built.main)].map((f) => {
    if (f.endsWith(".wasm")) return `(name = "${f}", wasm = embed "${f}")`;
    if (f.endsWith(".js") || f.endsWith(".mjs")) return `(name = "${f}", esModule = embed "${f}")`;
    // wrangler's default module rules: text for .txt, .html and .sql; data (bytes) for the rest.
    if (/\.(txt|html|sql)$/.test(f)) return `(name = "${f}", text = embed "${f}")`;
    return `(name = "${f}", data = embed "${f}")`;
  });
  const bindings = [
    ...spec.durableObjects.map((d) => `(name = "${d.binding}", durableObjectNamespace = "${d.className}")`),
    ...Object.entries(spec.vars ?? {}).map(([k, v]) => `(name = "${k}", text = ${JSON.stringify(v)})`),
  ];
  const namespaces = spec.durableObjects.map((d) => `(className = "${d.className}", uniqueKey = "${namespaceKey(spec, d.className)}", enableSql = true)`);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker), (name = "disk", disk = (path = ${JSON.stringify(diskDir)}, writable = true))${spec.outbound ? `, (name = "outbound", external = (address = ${JSON.stringify(spec.outbound)}, http = ()))` : ""}],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules.join(", ")}],
  compatibilityDate = "2026-11-02",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [${bindings.join(", ")}],
  durableObjectNamespaces = [${namespaces.join(", ")}],
  durableObjectStorage = (localDisk = "disk"),${spec.outbound ? `
  globalOutbound = "outbound",` : ""}
);
`;
}

/**
 * Builds and starts every target; resolves once each answers on its port. Each server's `disk` is
 * the folder of its Durable Objects' SQLite files.
 * @param {string} root
 * @param {Array<TargetSpec & { port: number, inspectorPort?: number }>} specs
 */
export async function startAll(root, specs) {
  const work = mkdtempSync(path.join(tmpdir(), "weft-bench-compare-"));
  const binary = workerdBinary(root);
  const servers = [];
  for (const spec of specs) {
    const outdir = path.join(work, spec.name);
    const built = bundle(root, spec.bundle ?? spec.name, outdir);
    const disk = path.join(work, `${spec.name}-disk`);
    mkdirSync(disk);
    writeFileSync(path.join(outdir, "config.capnp"), capnpConfig(spec, built, spec.port, disk));
    const args = ["serve", path.join(outdir, "config.capnp")];
    if (spec.inspectorPort) args.push(`--inspector-addr=127.0.0.1:${spec.inspectorPort}`);
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr = (stderr + d).slice(-4000);
    });
    servers.push({ spec, child, stderr: () => stderr, base: `http://127.0.0.1:${spec.port}`, disk });
  }
  const stop = () => servers.forEach((s) => s.child.exitCode === null && s.child.kill("SIGTERM"));
  try {
    for (const s of servers) await waitUp(s);
  } catch (e) {
    stop();
    throw e;
  }
  return { servers, work, stop };
}

async function waitUp(server) {
  for (let i = 0; i < 200; i++) {
    if (server.child.exitCode !== null) throw new Error(`workerd for ${server.spec.name} exited: ${server.stderr()}`);
    try {
      await fetch(`${server.base}/__up`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`workerd for ${server.spec.name} did not answer in 20 s: ${server.stderr()}`);
}

/** A loopback TCP port free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 10 ms ticks). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * CPU time a process's threads have run so far, in ms, at nanosecond resolution: the sum of each
 * live thread's time on a CPU (`/proc/<pid>/task/<tid>/schedstat`, its first field). For windows
 * too short for {@link cpuMs}'s 10 ms ticks; a thread that exits takes its time with it, which
 * workerd's long-lived threads do not.
 */
export function cpuMsPrecise(pid) {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // Exited between the listing and the read.
    }
  }
  return ns / 1e6;
}

/** Resident memory of a process in KiB (Linux /proc). */
export function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return m ? Number(m[1]) : NaN;
}
