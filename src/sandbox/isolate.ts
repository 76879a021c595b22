/**
 * The isolate executor: code runs in a V8 isolate started by the Worker Loader, with no network
 * (`globalOutbound: null`), an empty `env`, and the Workers runtime's `limits` (`cpuMs`,
 * `subRequests`). Those limits and the 128 MB memory of an isolate are enforced by Cloudflare in
 * production; local workerd (wrangler dev, tests) enforces neither, so locally this executor must
 * not be handed code that may loop forever or allocate without bound.
 *
 * An isolate is reused while the code, modules, globals and import names are unchanged within one
 * scope (a thread): that is what makes a warm run cost about one RPC. Module state of that code
 * survives between its own runs in the scope; nothing is shared across scopes.
 * @module
 */
import { RpcTarget } from "cloudflare:workers";
import { canonicalHashOf } from "../calls/input.js";
import { encodeValue } from "./codec.js";
import type { CodeOutcome, SandboxExecutor, SandboxRequest } from "./executor.js";
import { ISOLATE_COMPATIBILITY_DATE, ISOLATE_CPU_MS, ISOLATE_SUBREQUESTS, MEMORY_CEILING_BYTES } from "./limits.js";
import { importModuleSource, isolateHarnessSource } from "./prelude.js";
import { RunSession, describeError } from "./session.js";

const HARNESS = "weft-harness.js";

/**
 * What the sandbox holds of the host during a run; every method refuses once the run ended, and
 * answers `false` then, which the harness takes as the run's end (no answer is `false` otherwise).
 */
class SessionGateway extends RpcTarget {
  constructor(private readonly session: RunSession) {
    super();
  }
  log(level: string, text: string): boolean {
    return this.session.log(String(level), String(text));
  }
  progress(text: string): Promise<boolean> {
    return answered(this.session, () => (this.session.progress(String(text)), true));
  }
  call(module: string, name: string, argsText: string): Promise<string | false> {
    return answered(this.session, () => this.session.call(String(module), String(name), String(argsText)));
  }
  fetch(url: string, initText: string): Promise<string | false> {
    return answered(this.session, () => this.session.fetch(String(url), String(initText)));
  }
}

/**
 * `work`'s answer, or `false` when it failed because (or while) the run ended, else its error: the
 * harness tells the host's refusal by that answer, not by a message, which a tool's own error may share.
 */
async function answered<T>(session: RunSession, work: () => T | Promise<T>): Promise<T | false> {
  try {
    return await work();
  } catch (error) {
    if (session.closed) return false;
    throw error;
  }
}

/** The reply of the harness's `run`: the encoded value alone, or an object when lines travel with it. */
type HarnessReply =
  | string
  | (({ ok: true; text: string } | { ok: false; name: string; message: string; stack: string }) & {
      /** Console lines, when the run had no host stub to stream them to. */
      logs: Array<[level: string, text: string]>;
    });

/** The harness's `run`, as the host calls it. */
type SandboxEntry = {
  run(fn: string, argsText: string, maxLogBytes: number, host: SessionGateway | undefined): Promise<HarnessReply>;
};

/** Isolate names by identity text: hashing once per distinct code keeps a warm run cheap. */
const keys = new Map<string, string>();
const MAX_KEYS = 500;
/**
 * UTF-16 units of identity text kept at most (4 Mi, 8 MB at most): the map is shared by every
 * thread of the Worker's isolate, and one text holds a run's code and globals as JSON, megabytes.
 */
const MAX_KEPT_CHARS = 4 * 1024 * 1024;
let keptChars = 0;

/** UTF-16 units of identity text the isolate names are kept by: tests read it. */
export function keptKeyChars(): number {
  return keptChars;
}

async function newKey(text: string, identity: unknown): Promise<string> {
  const key = `weft-sandbox-${await canonicalHashOf(identity)}`;
  // Past the bound the oldest go; a text larger than it alone is hashed again at each run.
  if (text.length > MAX_KEPT_CHARS || keys.has(text)) return key;
  while (keys.size > 0 && (keys.size >= MAX_KEYS || keptChars + text.length > MAX_KEPT_CHARS)) {
    const oldest = keys.keys().next().value!;
    keys.delete(oldest);
    keptChars -= oldest.length;
  }
  keys.set(text, key);
  keptChars += text.length;
  return key;
}

/**
 * Entrypoint stubs of recently run isolates, by isolate name and CPU budget: keeping the stub
 * saves a warm run the loader lookup. Few are kept, so held stubs never pin many isolates. A stub
 * belongs to the I/O context that made it; for weft (scope = thread) that is the thread's Durable
 * Object, one context for all its requests. A kept stub that refuses is replaced.
 */
const stubs = new Map<string, SandboxEntry>();
const MAX_STUBS = 32;

/** workerd's refusal of an I/O object used from another request's context. */
const OTHER_CONTEXT = /on behalf of a different request|different I\/O context/i;

/** What a run sends besides its request: the texts the isolate name and the harness are made of. */
interface Prepared {
  readonly request: SandboxRequest;
  readonly session: RunSession;
  readonly argsText: string;
  readonly globalsText: string;
  readonly importNames: Record<string, string[]>;
  readonly fetchGranted: boolean;
}

/** Runs code in Worker Loader isolates; CPU and memory limits hold in production only. */
export class IsolateExecutor implements SandboxExecutor {
  readonly name = "isolate";
  readonly enforcesLowerMemoryLimit = false;

  constructor(private readonly loader: WorkerLoader) {}

  // Not async, and a warm run awaits nothing but the reply: each promise hop costs a warm run.
  run(request: SandboxRequest): Promise<CodeOutcome> {
    const session = new RunSession(request, this.name, MEMORY_CEILING_BYTES);
    try {
      const globalsText = encodeValue(request.globals, "globals");
      const importNames: Record<string, string[]> = {};
      for (const specifier in request.imports) importNames[specifier] = Object.keys(request.imports[specifier]!);
      const fetchGranted = request.fetchAllow.length > 0;
      const run: Prepared = { request, session, argsText: encodeValue(request.execute.args, "args"), globalsText, importNames, fetchGranted };
      const identity = { scope: request.scope, filename: request.filename, source: request.source, modules: request.modules, importNames, globalsText, fetchGranted };
      const text = JSON.stringify(identity);
      const key = keys.get(text);
      if (key !== undefined) this.send(run, key);
      else newKey(text, identity).then((key) => this.send(run, key), (error: unknown) => session.end("error", describeError(error)));
    } catch (error) {
      session.end("error", describeError(error));
    }
    // The reply, the deadline, a cancel or the log cap: whichever ends the session first.
    return session.ended;
  }

  /** Calls the harness of isolate `key` (a kept stub when there is one); the reply ends the session. */
  private send(run: Prepared, key: string): void {
    const { request, session } = run;
    const cpuMs = Math.min(ISOLATE_CPU_MS, request.timeoutMs);
    const stubKey = `${key}/${cpuMs}`;
    // A stub only when the code has something to reach: imports, a granted fetch, or streaming.
    const needsHost = run.fetchGranted || request.onLog !== undefined || request.onProgress !== undefined || Object.keys(run.importNames).length > 0;
    const call = (entry: SandboxEntry) => entry.run(request.execute.fn, run.argsText, request.maxLogBytes, needsHost ? new SessionGateway(session) : undefined);
    const onReply = (r: HarnessReply) => {
      if (typeof r === "string") return void session.succeed(r);
      for (const [level, text] of r.logs) session.log(level, text);
      if (r.ok) session.succeed(r.text);
      else session.end("error", r.stack ? `${r.name}: ${r.message}\n${r.stack.split("\n").slice(1).join("\n")}`.trimEnd() : `${r.name}: ${r.message}`);
    };
    // In production the runtime ends an isolate past its limits; its message names the limit.
    const onFailure = (error: unknown) => {
      const message = describeError(error);
      session.end(statusOfFailure(message), /code had hung/.test(message) ? `the promise of ${request.execute.fn}() never settles: nothing is left that could settle it` : message);
    };
    const callFresh = () => {
      try {
        const entry = this.entryOf(key, cpuMs, run);
        if (stubs.size >= MAX_STUBS) stubs.delete(stubs.keys().next().value!);
        stubs.set(stubKey, entry);
        call(entry).then(onReply, onFailure);
      } catch (error) {
        onFailure(error);
      }
    };
    const kept = stubs.get(stubKey);
    if (!kept) return callFresh();
    // A kept stub made in another I/O context refuses before anything reaches the isolate.
    const retry = (error: unknown) => (OTHER_CONTEXT.test(describeError(error)) ? callFresh() : onFailure(error));
    try {
      call(kept).then(onReply, retry);
    } catch (error) {
      retry(error);
    }
  }

  /** Loads (or finds warm) the isolate named `key` and returns its entrypoint with `cpuMs`. */
  private entryOf(key: string, cpuMs: number, { request, importNames, globalsText, fetchGranted }: Prepared): SandboxEntry {
    const worker = this.loader.get(key, () => ({
      compatibilityDate: ISOLATE_COMPATIBILITY_DATE,
      compatibilityFlags: ["nodejs_als"],
      mainModule: HARNESS,
      // `{ js }` marks each as an ES module whatever its name ends with (code.ts, tools).
      modules: Object.fromEntries(
        Object.entries({
          ...request.modules,
          ...Object.fromEntries(Object.entries(importNames).map(([specifier, names]) => [specifier, importModuleSource(specifier, names)])),
          [request.filename]: request.source,
          [HARNESS]: isolateHarnessSource(request.filename, globalsText, fetchGranted),
        }).map(([name, js]) => [name, { js }]),
      ),
      env: {},
      // null blocks fetch() and connect(); leaving it out would inherit this Worker's network.
      // A granted fetch goes through the host's gateway instead (RunSession.fetch).
      globalOutbound: null,
    }));
    return worker.getEntrypoint("Sandbox", { limits: { cpuMs, subRequests: ISOLATE_SUBREQUESTS } }) as unknown as SandboxEntry;
  }
}

/** Status of a failed isolate call: production reports exceeded CPU or memory in the message. */
function statusOfFailure(message: string): "timeout" | "memory" | "error" {
  // workerd cancels a call that waits on nothing: a promise that can never settle.
  if (/exceeded CPU|code had hung/i.test(message)) return "timeout";
  if (/memory limit|out of memory/i.test(message)) return "memory";
  return "error";
}
