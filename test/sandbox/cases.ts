/**
 * The sandbox conformance suite: what every executor must do. Each case throws when the executor
 * misbehaves. Hostile cases live in hostile.ts.
 * @module
 */
import { expect } from "vitest";
import type { ExecutorName } from "../../src/sandbox/executor.js";
import { QUICKJS_HEAP_BYTES } from "../../src/sandbox/limits.js";
import type { CodeExecution, CodeExecutionOptions, CodeExecutionResult, ThreadState } from "../../src/tools/thread-state.js";

/** What a case gets: runCode on a state bound to the `run_code` fixture tool, pinned to one executor. */
export interface CaseContext {
  sandbox: ExecutorName;
  state: ThreadState;
  /** The thread's Durable Object instance (its store holds events and calls). */
  instance: any;
  start(source: string, options?: CodeExecutionOptions): CodeExecution;
  run(source: string, options?: CodeExecutionOptions): Promise<CodeExecutionResult>;
}

/** One case; `productionOnly` names executors that cannot stop it locally, with the reason. */
export interface SandboxCase {
  name: string;
  productionOnly?: Partial<Record<ExecutorName, string>>;
  run(ctx: CaseContext): Promise<void>;
}

const MiB = 1024 * 1024;

/** Asserts a success and returns its value. */
export function valueOf(outcome: CodeExecutionResult): unknown {
  if (outcome.status !== "success") throw new Error(`expected success, got ${outcome.status}: ${outcome.error}`);
  return outcome.value;
}

export const conformanceCases: SandboxCase[] = [
  {
    name: "calls the default export and returns its value",
    async run({ run }) {
      const out = await run("export default () => 6 * 7");
      expect(valueOf(out)).toBe(42);
      expect(out.logs).toEqual([]);
      expect(out.durationMs).toBeGreaterThanOrEqual(0);
    },
  },
  {
    name: "calls a named export with arguments",
    async run({ run }) {
      expect(valueOf(await run("export function addOne(n) { return n + 1 }", { execute: { fn: "addOne", args: [100] } }))).toBe(101);
    },
  },
  {
    name: "awaits an async export and top-level await",
    async run({ run }) {
      const src = "const base = await Promise.resolve(10);\nexport default async (x) => base + (await Promise.resolve(x))";
      expect(valueOf(await run(src, { execute: { fn: "default", args: [5] } }))).toBe(15);
    },
  },
  {
    name: "imports relative modules",
    async run({ run }) {
      const out = await run("import { add } from './math.js';\nimport { twice } from './lib/twice.js';\nexport default () => twice(add(1, 2))", {
        modules: { "./math.js": "export const add = (a, b) => a + b", "./lib/twice.js": "import { add } from '../math.js';\nexport const twice = (x) => add(x, x)" },
      });
      expect(valueOf(out)).toBe(6);
    },
  },
  {
    name: "sets globals before the code runs",
    async run({ run }) {
      const out = await run("const seen = rate * 2;\nexport default () => ({ seen, name: user.name })", { globals: { rate: 21, user: { name: "Ada" } } });
      expect(valueOf(out)).toEqual({ seen: 42, name: "Ada" });
    },
  },
  {
    name: "strips TypeScript types",
    async run({ run }) {
      const src = "interface Pt { x: number }\nconst norm = (p: Pt): number => p.x * 2;\nexport default (x: number): number => norm({ x })";
      expect(valueOf(await run(src, { language: "typescript", execute: { fn: "default", args: [4] } }))).toBe(8);
    },
  },
  {
    name: "round-trips structured-clone values both ways",
    async run({ run }) {
      const value = {
        n: -0,
        nan: NaN,
        inf: -Infinity,
        big: 12345678901234567890n,
        when: new Date("2026-01-02T03:04:05.000Z"),
        map: new Map<unknown, unknown>([["a", 1], [2, { b: [true] }]]),
        set: new Set([1, "two"]),
        re: /a+b/gi,
        bytes: new Uint8Array([0, 7, 255]),
        nested: { list: [null, "x", { $weft: "not a tag" }] },
        nothing: undefined,
      };
      const out = await run("export default (v) => v", { execute: { fn: "default", args: [value] } });
      const back = valueOf(out) as typeof value;
      expect(Object.is(back.n, -0)).toBe(true);
      expect(back.nan).toBeNaN();
      expect(back).toEqual({ ...value, n: -0, nan: NaN });
      expect(back.when).toBeInstanceOf(Date);
      expect(back.map).toBeInstanceOf(Map);
      expect(back.bytes).toBeInstanceOf(Uint8Array);
      const made = await run("export default () => ({ d: new Date(0), m: new Map([[1, 2]]), s: new Set([3]), b: 2n ** 70n })");
      expect(valueOf(made)).toEqual({ d: new Date(0), m: new Map([[1, 2]]), s: new Set([3]), b: 2n ** 70n });
    },
  },
  {
    name: "refuses a result that is not a structured-clone value, naming its path",
    async run({ run }) {
      const out = await run("export default () => ({ ok: 1, cb: () => 1 })");
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/result\.cb: a function is not a structured-clone value/);
      const cyclic = await run("export default () => { const a = {}; a.self = a; return a }");
      expect(cyclic.error).toMatch(/result\.self: a cyclic reference/);
    },
  },
  {
    name: "refuses arguments that are not structured-clone values before running",
    async run({ run }) {
      const out = await run("export default () => { throw new Error('ran') }", { execute: { fn: "default", args: [{ f: () => 1 }] } });
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/args\[0\]\.f: a function/);
    },
  },
  {
    name: "reports a thrown error with its message and a stack naming the file",
    async run({ run }) {
      const out = await run("export default () => {\n  helper();\n}\nfunction helper() { throw new TypeError('bad input') }", { filename: "calc.js" });
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/^TypeError: bad input/);
      expect(out.error).toMatch(/calc\.js/);
    },
  },
  {
    name: "reports a syntax error and a missing export clearly",
    async run({ run }) {
      const bad = await run("export default () => {");
      expect(bad.status).toBe("error");
      expect(bad.error).toMatch(/SyntaxError/);
      const missing = await run("export const a = 1", { execute: { fn: "main", args: [] } });
      expect(missing.status).toBe("error");
      expect(missing.error).toMatch(/no exported function "main"; its exports: a/);
    },
  },
  {
    name: "captures console output in order with levels",
    async run({ run }) {
      const out = await run("export default () => { console.log('a', 1, { b: 2 }); console.warn('careful'); console.error(new Error('boom')); return 0 }");
      expect(out.logs[0]).toBe('a 1 {"b":2}');
      expect(out.logs[1]).toBe("[warn] careful");
      expect(out.logs[2]).toMatch(/^\[error\] Error: boom/);
    },
  },
  {
    name: "streams console output and progress as thread events when report is set",
    async run({ run, instance }) {
      const before = instance.store.events.lastSeq();
      const out = await run("export default () => { console.log('step 1'); reportProgress({ done: 1, of: 2 }); return 'ok' }", { report: true });
      expect(valueOf(out)).toBe("ok");
      const frames = instance.store.events.since(before) as Array<{ type: string; data: any }>;
      const types = frames.map((f) => f.type);
      expect(types).toEqual(["code_log", "code_progress", "code_finished"]);
      expect(frames[0]!.data).toMatchObject({ level: "log", text: "step 1", callId: "call_sandbox_case" });
      expect(frames[1]!.data.data).toEqual({ done: 1, of: 2 });
      expect(frames[2]!.data).toMatchObject({ status: "success" });
    },
  },
  {
    name: "clamps the memory limit to the 128 MB ceiling and reports the limit in force",
    async run({ run, sandbox }) {
      const high = await run("export default () => 1", { memoryLimitBytes: 4096 * MiB });
      // QuickJS's heap has a fixed maximum below the ceiling: that is the limit in force.
      expect(high.memoryLimitBytes).toBe(sandbox === "isolate" ? 128 * MiB : QUICKJS_HEAP_BYTES);
      const low = await run("export default () => 1", { memoryLimitBytes: 32 * MiB });
      // A Workers isolate always has 128 MB; QuickJS enforces a lower limit.
      expect(low.memoryLimitBytes).toBe(sandbox === "isolate" ? 128 * MiB : 32 * MiB);
      const bad = await run("export default () => 1", { memoryLimitBytes: -5 });
      expect(bad).toMatchObject({ status: "error" });
      expect(bad.error).toMatch(/^invalid_request: memoryLimitBytes: expected a positive integer/);
    },
  },
  {
    name: "refuses bad options in the result, never by throwing",
    async run({ start }) {
      const handle = start("export default () => 1", { language: "cobol" as never });
      const out = await handle;
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/^invalid_request: language/);
      const unknown = await start("export default () => 1", { nope: true } as never);
      expect(unknown.error).toMatch(/^invalid_request: nope: unknown option/);
    },
  },
  {
    name: "cancels a running execution",
    async run({ start }) {
      // It would run for 30 s: ended far sooner, the cancel ended it, however loaded the machine.
      const handle = start("export default () => new Promise((resolve) => setTimeout(() => resolve('late'), 30000))", { timeoutMs: 60_000 });
      setTimeout(() => handle.cancel(), 20);
      const out = await handle.result;
      expect(out.status).toBe("cancelled");
      expect(out.durationMs).toBeLessThan(15_000);
    },
  },
  {
    name: "supports timers inside the sandbox",
    async run({ run }) {
      const out = await run("export default async () => { const order = []; await new Promise((r) => setTimeout(() => { order.push('t'); r() }, 5)); order.push('after'); return order }");
      expect(valueOf(out)).toEqual(["t", "after"]);
    },
  },
  {
    name: "calls host functions granted as imports",
    async run({ run }) {
      const seen: unknown[] = [];
      const out = await run("import { lookup } from 'host';\nexport default async () => (await lookup('k', 2)).value * 10", {
        imports: { host: { lookup: async (key: string, n: number) => (seen.push([key, n]), { value: n + 1 }) } },
      });
      expect(valueOf(out)).toBe(30);
      expect(seen).toEqual([["k", 2]]);
    },
  },
  {
    name: "calls the thread's tools through the dispatch pipeline",
    async run({ run, instance }) {
      const out = await run("import { record_call } from 'tools';\nexport default async () => { const r = await record_call({ n: 7 }); return r.n }", {
        imports: { tools: ["record_call"] },
      });
      expect(valueOf(out)).toBe(7);
      const calls = [...instance.store.calls.list(100, 0)] as Array<{ toolName: string; parentCallId?: string; status: string; source: string }>;
      const call = calls.find((c) => c.toolName === "record_call" && c.parentCallId === "call_sandbox_case");
      expect(call).toMatchObject({ status: "succeeded", source: "invoke" });
    },
  },
  {
    name: "fetch goes only to granted origins, through the host's gateway",
    async run({ run }) {
      const src = `export default async (url) => { try { const r = await fetch(url); return "status " + r.status } catch (e) { return "refused: " + e.message } }`;
      const grant = { allow: ["http://127.0.0.1:9"] };
      const other = await run(src, { fetch: grant, execute: { fn: "default", args: ["http://127.0.0.1:8787/threads"] } });
      expect(valueOf(other)).toBe("refused: fetch to http://127.0.0.1:8787 is not permitted (granted: http://127.0.0.1:9)");
      // The granted origin is really attempted (nothing listens on port 9, so the network refuses).
      const granted = String(valueOf(await run(src, { fetch: grant, execute: { fn: "default", args: ["http://127.0.0.1:9/x"] } })));
      expect(granted).not.toMatch(/not permitted/);
      const bad = await run(src, { fetch: { allow: ["https://example.com/path"] } });
      expect(bad.error).toMatch(/^invalid_request: fetch\.allow\.0: expected an http\(s\) origin/);
    },
  },
  {
    name: "turns a tool's error into a rejection the code can catch",
    async run({ run }) {
      const out = await run("import { record_call } from 'tools';\nexport default async () => { try { await record_call('not an object'); return 'no' } catch (e) { return String(e.message) } }", {
        imports: { tools: ["record_call"] },
      });
      expect(valueOf(out)).toMatch(/record_call: expected one object argument/);
    },
  },
];
