/**
 * Where the CLI's requests go: a running weft (`--url`, or `WEFT_URL`); else the local weft that
 * `npm start` serves (http://localhost:8787, or `WEFT_LOCAL_URL`) when one answers; else, for the
 * commands that can, an ephemeral local runtime: `wrangler dev` of the project on a free port, in
 * development mode, with fresh state, stopped when the command ends (also on Ctrl-C).
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";

/** The nearest folder at or above `from` with a `wrangler.toml`: the weft project to serve. */
export function projectDir(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "wrangler.toml"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no wrangler.toml in ${resolve(from)} or above: run weft inside a weft project, or pass --url`);
  }
}

/** What `withRuntime` knows of the runtime it hands over. */
export interface Runtime {
  /** True for a local runtime this command started that serves in development mode (it refuses every token). */
  devMode: boolean;
  /**
   * True for a weft only found answering at the local address ({@link localUrl}): neither named by
   * `--url` or `WEFT_URL` nor started by this command. Any process on the machine may listen
   * there, so a token from the environment (meant for a weft the user named) is not sent to it.
   */
  found: boolean;
}

/** Where the CLI looks for a running local weft when no `--url` is given: `npm start`'s address. */
export function localUrl(): string {
  return process.env.WEFT_LOCAL_URL || "http://localhost:8787";
}

/** The `npm start` that serves `url`: with `-- --port` when it is not wrangler's default port. */
export function startCommand(url: string): string {
  const port = new URL(url).port;
  return port && port !== "8787" ? `npm start -- --port ${port}` : "npm start";
}

/**
 * What answers at `url` when it is a weft (its root route, within 10 s): a weft in development mode
 * names itself; one that wants a token answers weft's error body. Null when nothing, or something
 * else, answers. Nothing listening is refused at once; the bound is for a server that never
 * answers, generous because a busy machine's running weft can take seconds (at 2 s a loaded
 * machine's `npm start` was taken for none, and a second runtime started beside it).
 */
export async function probeWeft(url: string): Promise<Runtime | null> {
  try {
    const res = await fetch(`${url}/`, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
    const body = (await res.json().catch(() => null)) as { name?: unknown; error?: { code?: unknown } } | null;
    const isWeft = body?.name === "weft" || (res.status === 401 && typeof body?.error?.code === "string");
    return isWeft ? { devMode: res.headers.has("x-weft-dev-mode"), found: true } : null;
  } catch {
    return null;
  }
}

/**
 * Runs `fn` against `url`; without one, against the running local weft ({@link localUrl}) when
 * one answers and no `dir` names another project; else, with `ephemeral`, against a local runtime
 * started for the project in `dir` (default: found from the working directory) and stopped
 * afterwards.
 * @throws Error naming the local address when no weft answers there and the command cannot start one.
 */
export async function withRuntime<T>(
  options: { url?: string; dir?: string; quiet?: boolean; ephemeral?: boolean; config?: string; vars?: Record<string, string> },
  fn: (url: string, runtime: Runtime) => Promise<T>,
): Promise<T> {
  if (options.url) return fn(options.url, { devMode: false, found: false });
  if (!options.dir) {
    const local = localUrl();
    const running = await probeWeft(local);
    if (running) {
      if (!options.quiet && options.ephemeral) process.stderr.write(`weft: using the running local weft at ${local}\n`);
      return fn(local, running);
    }
    if (!options.ephemeral) throw new Error(`no weft answers at ${local}: start one with \`${startCommand(local)}\`, or pass --url`);
  }
  const cwd = projectDir(options.dir ?? process.cwd());
  // `config` (an eval suite's `runtime.config`) serves another wrangler.toml of the project; `vars` add `--var`s.
  const config = options.config ? relative(cwd, resolve(options.config)) : "wrangler.toml";
  const extraArgs = Object.entries(options.vars ?? {}).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  if (!options.quiet) process.stderr.write(`weft: starting a local runtime (wrangler dev) for ${cwd} ...\n`);
  if (!existsSync(join(cwd, "node_modules", "wrangler"))) throw new Error(`${cwd} has no node_modules/wrangler: run npm install there first`);
  const server = await startDevServer({ config, cwd, readyPath: "/v1/tools", extraArgs });
  const interrupted = () => void server.stop().then(() => process.exit(130));
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    // Development mode unless the project configures a credential (in .dev.vars): then tokens count.
    const probe = await fetch(`${server.url}/account`);
    await probe.body?.cancel();
    return await fn(server.url, { devMode: probe.headers.has("x-weft-dev-mode"), found: false });
  } finally {
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
    await server.stop();
  }
}
