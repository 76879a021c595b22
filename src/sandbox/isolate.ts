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
import { argsHashOf } from "../tools/dispatch.js";
import { encodeValue } from "./codec.js";
import type { CodeOutcome, SandboxExecutor, SandboxRequest } from "./executor.js";
import { ISOLATE_COMPATIBILITY_DATE, ISOLATE_CPU_MS, ISOLATE_SUBREQUESTS, MEMORY_CEILING_BYTES } from "./limits.js";
import { importModuleSource, isolateHarnessSource } from "./prelude.js";
import { RunSession, describeError } from "./session.js";

const HARNESS = "weft-harness.js";

/** What the sandbox holds of the host during a run; every method refuses once the run ended. */
class SessionGateway extends RpcTarget {
  constructor(private readonly session: RunSession) {
    super();
  }
  log(level: string, text: string): void {
    this.session.log(String(level), String(text));
  }
  progress(text: string): void {
    this.session.progress(String(text));
  }
  call(module: string, name: string, argsText: string): Promise<string> {
    return this.session.call(String(module), String(name), String(argsText));
  }
  fetch(url: string, initText: string): Promise<string> {
    return this.session.fetch(String(url), String(initText));
  }
}

/** The reply of the harness's `run`. */
type HarnessReply = ({ ok: true; text: string } | { ok: false; name: string; message: string; stack: string }) & {
  /** Console lines, when the run had no host stub to stream them to. */
  logs: Array<[level: string, text: string]>;
};

/** Isolate names by identity text: hashing once per distinct code keeps a warm run cheap. */
const keys = new Map<string, string>();
const MAX_KEYS = 500;

function isolateKey(identity: unknown): string | Promise<string> {
  const text = JSON.stringify(identity);
  return keys.get(text) ?? newKey(text, identity);
}

async function newKey(text: string, identity: unknown): Promise<string> {
  const key = `weft-sandbox-${await argsHashOf(identity)}`;
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(text, key);
  return key;
}

/** Runs code in Worker Loader isolates; CPU and memory limits hold in production only. */
export class IsolateExecutor implements SandboxExecutor {
  readonly name = "isolate";
  readonly enforcesLowerMemoryLimit = false;

  constructor(private readonly loader: WorkerLoader) {}

  async run(request: SandboxRequest): Promise<CodeOutcome> {
    const session = new RunSession(request, this.name, MEMORY_CEILING_BYTES);
    try {
      const globalsText = encodeValue(request.globals, "globals");
      const argsText = encodeValue(request.execute.args, "args");
      const importNames = Object.fromEntries(Object.entries(request.imports).map(([specifier, table]) => [specifier, Object.keys(table)]));
      const fetchGranted = request.fetchAllow.length > 0;
      const identity = { scope: request.scope, filename: request.filename, source: request.source, modules: request.modules, importNames, globalsText, fetchGranted };
      const cached = isolateKey(identity);
      const key = typeof cached === "string" ? cached : await cached;
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
      const limits = { cpuMs: Math.min(ISOLATE_CPU_MS, request.timeoutMs), subRequests: ISOLATE_SUBREQUESTS };
      const entry = worker.getEntrypoint("Sandbox", { limits }) as unknown as {
        run(fn: string, argsText: string, maxLogBytes: number, host: SessionGateway | undefined): Promise<HarnessReply>;
      };
      // A stub only when the code has something to reach: imports, a granted fetch, or streaming.
      const needsHost = (Object.keys(importNames).length > 0 || fetchGranted || request.onLog !== undefined || request.onProgress !== undefined);
      const reply = entry.run(request.execute.fn, argsText, request.maxLogBytes, needsHost ? new SessionGateway(session) : undefined).then(
        (r) => {
          for (const [level, text] of r.logs) session.log(level, text);
          if (r.ok) session.succeed(r.text);
          else session.end("error", r.stack ? `${r.name}: ${r.message}\n${r.stack.split("\n").slice(1).join("\n")}`.trimEnd() : `${r.name}: ${r.message}`);
        },
        // In production the runtime ends an isolate past its limits; its message names the limit.
        (error: unknown) => {
          const message = describeError(error);
          const status = statusOfFailure(message);
          session.end(status, /code had hung/.test(message) ? `the promise of ${request.execute.fn}() never settles: nothing is left that could settle it` : message);
        },
      );
      await Promise.race([reply, session.ended]);
    } catch (error) {
      session.end("error", describeError(error));
    }
    return session.ended;
  }
}

/** Status of a failed isolate call: production reports exceeded CPU or memory in the message. */
function statusOfFailure(message: string): "timeout" | "memory" | "error" {
  // workerd cancels a call that waits on nothing: a promise that can never settle.
  if (/exceeded CPU|code had hung/i.test(message)) return "timeout";
  if (/memory limit|out of memory/i.test(message)) return "memory";
  return "error";
}
