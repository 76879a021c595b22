/**
 * Helpers for the end-to-end suite: a real `wrangler dev` of weft over its test fixtures
 * (`test/wrangler.toml`; the README tour alone serves the example agent), JSON over Node's global
 * `fetch`, and a thread's event stream over Node's global `WebSocket`.
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { inject } from "vitest";
import { REPO_ROOT, isLocalEnvFile, startDevServer, type DevServer } from "../../scripts/lib/dev-server.mjs";
import { DEV_MODE_ARGS, startShared, type SharedConfig } from "./shared-weft.js";

export type { DevServer };

/** One event frame as the WebSocket sends it. */
export interface Frame {
  seq: number;
  type: string;
  data: any;
  at: string;
}

/** The tools the example agent in `agents/tools/` defines (the README tour's agent). */
export const EXAMPLE_TOOLS = ["add_note", "compute", "get_current_time", "list_notes", "roll_dice"];

/**
 * Starts `wrangler dev` on free ports: weft over test/fixtures/ (`test/wrangler.toml`), or with
 * `config: "wrangler.toml"` the project exactly as `npm start` serves it. With `persistTo`, state
 * lives in that folder and survives a stop, so a second start on it is a restart.
 */
export function startWeft(persistTo?: string, config = "test/wrangler.toml"): Promise<DevServer> {
  // The fixtures' config carries test credentials for the in-workerd auth suites; blanking them
  // here leaves development mode (as `npm start` runs), so these clients need no token.
  const devMode = config === "test/wrangler.toml" ? DEV_MODE_ARGS : [];
  return startDevServer({ config, readyPath: "/v1/tools", extraArgs: devMode, ...(config === "wrangler.toml" ? { devOAuth: true } : {}), ...(persistTo ? { persistTo } : {}) });
}

/**
 * The run's shared server of configuration `name` (see shared-weft.ts) when the run has one: its
 * `stop()` then leaves it running for the other files, and its state holds other files' threads
 * (make your own, never count all). Without the broker (a config that does not set it up), a
 * server of this file's own, which `stop()` ends.
 */
export async function sharedWeft(name: SharedConfig): Promise<DevServer> {
  const broker = inject("weftBroker");
  if (!broker) return startShared(name);
  const res = await fetch(`${broker}/?config=${name}`);
  if (!res.ok) throw new Error(`shared ${name} server: ${await res.text()}`);
  const { url, port, logFile } = (await res.json()) as { url: string; port: number; logFile: string };
  return { url, port, logFile, logTail: () => readFileSync(logFile, "utf8").split("\n").slice(-40).join("\n"), stop: async () => {} };
}

/** A JSON answer: status and parsed body. */
export interface JsonResponse {
  status: number;
  contentType: string | null;
  body: any;
}

/** Sends a request (an object body is sent as JSON, a string as is) and parses the JSON answer. */
export async function call(base: string, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const res = await fetch(base + path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path} -> ${res.status}: body is not JSON: ${text.slice(0, 300)}`);
  }
  return { status: res.status, contentType: res.headers.get("content-type"), body: parsed };
}

/** Creates a thread (`POST /threads`) and returns its id. */
export async function createThread(base: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call(base, "POST", "/threads", body);
  if (res.status !== 201) throw new Error(`POST /threads -> ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.threadId as string;
}

/** Polls `GET /threads/:id` until no turn runs; returns the final info. */
export function waitIdle(base: string, threadId: string, timeoutMs = 15_000): Promise<any> {
  return waitStatus(base, threadId, "idle", timeoutMs);
}

/** Polls `GET /threads/:id` until its `status` is `status` (`idle`, `waiting`, ...); returns that info. */
export async function waitStatus(base: string, threadId: string, status: string, timeoutMs = 15_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await call(base, "GET", `/threads/${threadId}`);
    if (info.status === 200 && info.body.status === status) return info.body;
    if (Date.now() > deadline) throw new Error(`thread ${threadId} not ${status} after ${timeoutMs} ms: ${JSON.stringify(info.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A subscription to `GET /threads/:id/ws?since=`, collecting frames in arrival order. */
export interface Subscription {
  readonly socket: WebSocket;
  readonly frames: Frame[];
  /** Resolves once `done(frames)` holds; rejects after `timeoutMs` or when the socket closes first. */
  until(done: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops collecting at once (frames still in flight are ignored) and closes the socket. */
  close(): void;
}

/**
 * Opens a thread's WebSocket with Node's global `WebSocket` and resolves once it is open.
 * `dropAfter: n` closes the socket from inside the handler of the n-th frame, so exactly n frames
 * are kept even when many arrive in one burst (a client that drops mid-stream).
 */
export async function subscribe(base: string, threadId: string, since?: number, options: { dropAfter?: number } = {}): Promise<Subscription> {
  const url = `${base.replace(/^http/, "ws")}/threads/${threadId}/ws${since === undefined ? "" : `?since=${since}`}`;
  const socket = new WebSocket(url);
  const frames: Frame[] = [];
  const waiters = new Set<() => void>();
  let collecting = true;
  let closed = false;
  const notify = () => waiters.forEach((w) => w());
  socket.addEventListener("message", (e) => {
    if (!collecting) return;
    frames.push(JSON.parse(String(e.data)) as Frame);
    if (frames.length === options.dropAfter) {
      collecting = false;
      socket.close();
    }
    notify();
  });
  socket.addEventListener("close", () => {
    closed = true;
    notify();
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`WebSocket ${url} failed to open`)), { once: true });
  });
  return {
    socket,
    frames,
    until(done, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (done(frames)) finish();
          else if (closed) finish(new Error(`socket closed after ${frames.length} frames`));
        };
        const timer = setTimeout(() => finish(new Error(`timed out after ${frames.length} frames (last seq ${frames.at(-1)?.seq})`)), timeoutMs);
        const finish = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve();
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      collecting = false;
      socket.close();
    },
  };
}

/** Seqs 1..n. */
export function range1(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/**
 * A script of `steps` model steps, each calling get_server_time, sum_range and list_drafts in
 * parallel, then a closing text step: many frames for reconnect tests.
 */
export function busyScript(steps: number, tag: string): unknown[] {
  const script: unknown[] = [];
  for (let i = 1; i <= steps; i++) {
    script.push({
      text: `step ${i}`,
      toolCalls: [
        { id: `${tag}_time_${i}`, name: "get_server_time", arguments: {} },
        { id: `${tag}_sum_${i}`, name: "sum_range", arguments: { from: 1, to: 2 } },
        { id: `${tag}_drafts_${i}`, name: "list_drafts", arguments: {} },
      ],
    });
  }
  script.push({ text: "all done" });
  return script;
}

/**
 * A copy of the project as a fresh clone would have it (no node_modules, .git, .wrangler,
 * generated files or the author's `.dev.vars` and `.env`; node_modules linked), with `files` (path
 * relative to the project -> text) written into it. Returns the copy's folder; the caller removes it.
 */
export function copyProject(files: Record<string, string> = {}, from = REPO_ROOT): string {
  const project = mkdtempSync(join(tmpdir(), "weft-project-"));
  const skipped = new Set(["node_modules", ".git", ".wrangler", "dist"]);
  cpSync(from, project, {
    recursive: true,
    filter: (src) => {
      const parts = relative(from, src).split(sep);
      if (parts.length === 1 && isLocalEnvFile(parts[0]!)) return false;
      return !skipped.has(parts[0]!) && !parts.includes("generated") && !parts.includes(".wrangler");
    },
  });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(project, "node_modules"), "dir");
  for (const [path, text] of Object.entries(files)) writeIn(project, path, text);
  return project;
}

/**
 * A new folder holding the project as `git clone` of this checkout gives it: every file git
 * tracks or would track (`git ls-files --cached --others --exclude-standard`: uncommitted edits
 * and new files included, ignored ones such as node_modules and `.dev.vars` left out), and nothing
 * installed. The caller runs `npm install` there and removes the folder.
 */
export function freshClone(from = REPO_ROOT): string {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: from, encoding: "utf8", maxBuffer: 64 << 20 });
  if (listed.status !== 0) throw new Error(`git ls-files in ${from} failed: ${listed.stderr}`);
  const project = mkdtempSync(join(tmpdir(), "weft-fresh-"));
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    // A tracked file deleted in the working tree is not in a clone of it either.
    if (!existsSync(join(from, file))) continue;
    mkdirSync(dirname(join(project, file)), { recursive: true });
    cpSync(join(from, file), join(project, file));
  }
  return project;
}

/** Writes a file inside `project`, making its folder. */
export function writeIn(project: string, path: string, text: string): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
}

/** What a bash run printed and how it ended (`code` null when it was killed). */
export interface BashRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` in one `bash -c` under `set -e -o pipefail`, in `cwd` with `env` over the
 * process's own; killed after `timeoutMs` (default 240 s: a bound for a block that hangs, generous
 * for a machine loaded by a second npm test) so a hung block fails its test instead of the whole run.
 */
export function runBash(script: string, cwd: string, env: Record<string, string>, timeoutMs = 240_000): Promise<BashRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", `set -e -o pipefail\n${script}`], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A TCP proxy in front of a server; `cut()` destroys every open connection and says how many. */
export interface Proxy {
  url: string;
  cut(): number;
  close(): Promise<void>;
}

/** A TCP proxy to 127.0.0.1:<port> whose `cut()` destroys every open connection, as a network drop would. */
export async function startProxy(port: number): Promise<Proxy> {
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("proxy has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut() {
      const n = pairs.size;
      for (const [a, b] of [...pairs]) a.destroy(), b.destroy();
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) a.destroy(), b.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The test files `npm run test:agents` selects in `project` (vitest.agents.config.ts): every
 * `*.test.ts` under agents/ and every `*.agents.test.ts` under test/, relative paths.
 */
export function authorTestFiles(project: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(project, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === "node_modules" ? [] : walk(join(dir, e.name))) : [join(dir, e.name)]));
  return [...walk("agents").filter((f) => f.endsWith(".test.ts")), ...walk("test").filter((f) => f.endsWith(".agents.test.ts"))];
}

/** How many test files a vitest run printed as passed, all it ran ("Test Files  N passed (N)"); -1 for any other summary. */
export function ranFiles(out: string): number {
  const m = /Test Files\s+(\d+) passed \((\d+)\)/.exec(out);
  return m && m[1] === m[2] ? Number(m[1]) : -1;
}

/** The README's "switch to a real model" step, as an author fills it in. */
export const DEV_VARS = "WEFT_MODEL=openai:gpt-4.1-mini\nOPENAI_API_KEY=sk-author-own-key-0000\n";

/** The README's word_count.ts, exactly as the README shows it. */
export const WORD_COUNT = /```ts file=agents\/tools\/word_count\.ts\n([\s\S]*?)```/.exec(readFileSync(join(REPO_ROOT, "README.md"), "utf8"))![1]!;

/** An agent offering a tool, a prompt and an agent exposed as a tool, as docs/prompts-and-agents.md allows. */
export const HELPDESK = [
  'import { defineAgent } from "@standardagents/spec";',
  "",
  "/** Answers order questions, asking the shipping expert (an agent exposed as a tool) when a parcel is late. */",
  "export default defineAgent({",
  '  description: "Answers order questions.",',
  '  tools: ["lookup_order", "shipping_expert", "draft_reply"],',
  "});",
  "",
].join("\n");

/** An author's own test of the helpdesk, with weft/testing as docs/testing.md shows: a scripted model, the sub-agent and the README's tool called. */
export const HELPDESK_TEST = `import { expect, it } from "vitest";
import { createTestThread, scripted } from "weft/testing";

it("asks the shipping expert, an agent called as a tool, and answers from what it said", async () => {
  const thread = await createTestThread({
    agent: "helpdesk",
    model: scripted([
      { toolCalls: [{ id: "ask", name: "shipping_expert", arguments: { input: "Where is order A-1001?" } }] },
      { text: "Your kettle is on its way." },
    ]),
  });
  const turn = await thread.post("Where is my kettle?");
  expect(turn.turn).toMatchObject({ status: "completed", steps: 2 });
  expect(turn.calls.map((c) => [c.toolName, c.status])).toEqual([["shipping_expert", "succeeded"]]);
  expect(turn.calls[0]!.result!.result).toContain("A-1001 left the Parcelo depot");
  expect(turn.text).toBe("Your kettle is on its way.");
});

it("counts words with the README's word_count tool", async () => {
  // No agent named: the default one offers every tool of agents/tools/ (the example agent offers
  // the tools its list names, and the README does not have the author add word_count there).
  const thread = await createTestThread({
    model: scripted([{ toolCalls: [{ id: "count", name: "word_count", arguments: { text: "one two three" } }] }, { text: "Three words." }]),
  });
  const turn = await thread.post("How many words?");
  expect(turn.calls.map((c) => [c.toolName, c.status, c.result?.result])).toEqual([["word_count", "succeeded", "3"]]);
});
`;

/** Where the author's recorded-provider test keeps its recording. */
export const HELPDESK_RECORDING = "agents/tests/recordings/helpdesk.json";

/** The provider steps the helpdesk's recording is made from (the fake provider plays them as the real one would). */
export const HELPDESK_RECORDED_STEPS = [
  { toolCalls: [{ id: "call_look", name: "lookup_order", arguments: '{"orderId":"A-1002"}' }] },
  { text: "Your tea sampler (A-1002) is still being packed; it is due on 5 December." },
];

/** An author's recorded-provider test of the helpdesk: recorded once with WEFT_RECORD=1, replayed offline. */
export const HELPDESK_RECORDED_TEST = `import { expect, it } from "vitest";
import { createTestThread, recorded } from "weft/testing";

it("the helpdesk looks the order up and answers from it, on a recorded OpenAI model", async () => {
  const thread = await createTestThread({
    agent: "helpdesk",
    model: recorded("${HELPDESK_RECORDING}", { model: "openai:gpt-4.1-mini" }),
  });
  const turn = await thread.post("Has A-1002 shipped?");
  expect(turn.turn).toMatchObject({ status: "completed", steps: 2 });
  expect(turn.calls.map((c) => [c.toolName, c.input, c.status])).toEqual([["lookup_order", { orderId: "A-1002" }, "succeeded"]]);
  expect(turn.text).toBe("Your tea sampler (A-1002) is still being packed; it is due on 5 December.");
});
`;

/**
 * An author's project as the docs lead one to change it: a sub-agent and a prompt in an agent's
 * tools, the README's word_count.ts, a model in .dev.vars, and a test of their own with
 * weft/testing (author-project.node.test.ts; npm test runs it in docs.node.test.ts's copy).
 */
export const AUTHOR_FILES: Record<string, string> = {
  "agents/agents/helpdesk.ts": HELPDESK,
  "agents/tools/word_count.ts": WORD_COUNT,
  ".dev.vars": DEV_VARS,
  "agents/tests/helpdesk.test.ts": HELPDESK_TEST,
};
