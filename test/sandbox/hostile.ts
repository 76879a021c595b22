/**
 * Hostile code: each case must be refused or contained. Cases that local workerd cannot stop for
 * an executor (the local runtime enforces no CPU or memory limit on loaded isolates) say so in `productionOnly`.
 * @module
 */
import { expect, inject } from "vitest";
import { MEMORY_CEILING_BYTES } from "../../src/sandbox/limits.js";
import type { CodeExecutionResult } from "../../src/tools/thread-state.js";
import { within } from "./bounds.js";
import type { SandboxCase } from "./cases.js";
import { valueOf } from "./cases.js";


const LOCAL_NO_CPU_LIMIT = "the local runtime (wrangler dev, tests) enforces no CPU limit on Worker Loader isolates: the loop would hang it; Cloudflare stops it at limits.cpuMs";
const LOCAL_NO_MEMORY_LIMIT = "the local runtime (wrangler dev, tests) enforces no memory limit on Worker Loader isolates: the allocation would abort it; Cloudflare stops it at 128 MB";

export const hostileCases: SandboxCase[] = [
  {
    name: "infinite loop ends with timeout within the deadline",
    productionOnly: { isolate: LOCAL_NO_CPU_LIMIT },
    async run({ run }) {
      const out = await run("export default () => { for (;;) {} }", { timeoutMs: 500 });
      expect(out.status, `error: ${out.error}`).toBe("timeout");
      expect(out.error).toMatch(/passed its 500 ms deadline/);
      expect(out.durationMs).toBeLessThan(within(500 + 1000));
    },
  },
  {
    name: "a CPU-bound run ends at its deadline by the clock, or earlier only when counted",
    productionOnly: { isolate: LOCAL_NO_CPU_LIMIT },
    async run({ run }) {
      // Timed from outside, after real I/O: the clock inside a synchronous run may stand still
      // (workerd holds it at times locally too), and then the count ends the run, possibly early.
      const started = Date.now();
      const out = await run("export default () => { while (true) {} }", { timeoutMs: 500 });
      await new Promise((resolve) => setTimeout(resolve, 1));
      const elapsedMs = Date.now() - started;
      expect(out.status, `error: ${out.error}`).toBe("timeout");
      expect(out.error).toMatch(/passed its 500 ms deadline/);
      if (!/counted/.test(out.error ?? "")) expect(elapsedMs).toBeGreaterThanOrEqual(500);
      expect(elapsedMs).toBeLessThan(within(500 + 1000));
    },
  },
  {
    name: "with the clock standing still, CPU-bound runs end within their deadline in CPU time",
    productionOnly: { isolate: LOCAL_NO_CPU_LIMIT },
    async run({ run }) {
      // As on Cloudflare, where Date.now() does not move during synchronous work: only the
      // executor's count can end these loops. performance.now() moves here, and the elapsed time
      // of a busy single thread is at least the CPU time it used.
      const loops = {
        empty: "while (true) {}",
        counter: "let i = 0; for (;;) i++",
        math: "let s = 0; for (let i = 0; ; i++) s += Math.sqrt(i) * Math.sin(i)",
        strings: "let h = 0; for (let i = 0; ; i++) { const s = 'k' + (i % 1000); for (let j = 0; j < s.length; j++) h = (h * 31 + s.charCodeAt(j)) | 0 }",
      };
      const deadline = 1000;
      const realNow = Date.now;
      for (const [name, loop] of Object.entries(loops)) {
        const frozen = realNow();
        Date.now = () => frozen;
        const started = performance.now();
        let out;
        try {
          out = await run(`export default () => { ${loop} }`, { timeoutMs: deadline });
        } finally {
          Date.now = realNow;
        }
        const elapsedMs = performance.now() - started;
        expect(`${name}: ${out.status}`).toBe(`${name}: timeout`);
        expect(out.error).toMatch(/passed its 1000 ms deadline \(counted/);
        // Within the deadline in CPU time, plus what starting an engine costs: elapsed time is CPU
        // time only on a machine left to the run (the proof); beside other work it is more.
        expect(elapsedMs, `${name} ran ${Math.round(elapsedMs)} ms`).toBeLessThan(within(deadline + 400));
      }
    },
  },
  {
    name: "memory bomb ends with memory",
    productionOnly: { isolate: LOCAL_NO_MEMORY_LIMIT },
    async run({ run }) {
      const burst = await run("export default () => 'x'.repeat(2 ** 20).repeat(200).length");
      expect(burst.status).toBe("memory");
      const growing = await run("export default () => { const keep = []; for (;;) keep.push(new Array(1e5).fill(keep.length)) }", { memoryLimitBytes: 24 * 1024 * 1024 });
      expect(growing.status).toBe("memory");
      expect(growing.error).toMatch(/25165824-byte memory limit/);
    },
  },
  {
    name: "allocation bombs of every shape end with memory at each documented limit, and the next run works",
    productionOnly: { isolate: LOCAL_NO_MEMORY_LIMIT },
    async run({ run }) {
      const bombs = {
        arrays: "const keep = []; for (;;) keep.push(new Array(1e5).fill(keep.length))",
        strings: "const keep = []; for (let i = 0; ; i++) keep.push(i + 'x'.repeat(1000))",
        objects: "const keep = []; for (let i = 0; ; i++) keep.push({ a: i, b: [i, i], c: 'k' + i })",
        buffers: "const keep = []; for (;;) keep.push(new Float64Array(1e5))",
        map: "const m = new Map(); for (let i = 0; ; i++) m.set(i, { i })",
      };
      const limits = [undefined, MEMORY_CEILING_BYTES, 24 * 1024 * 1024];
      const shapes = Object.entries(bombs);
      // npm run sandbox: every shape at every limit; npm test: every shape once and every limit at
      // least once (shape i at limit i mod 3), a third of the CPU-bound allocations.
      const plan = inject("sandboxScale") === "full" ? limits.flatMap((limit) => shapes.map((s) => [limit, s] as const)) : shapes.map((s, i) => [limits[i % limits.length], s] as const);
      for (const [limit, [shape, body]] of plan) {
        const out = await run(`export default () => { ${body} }`, { timeoutMs: 60_000, ...(limit ? { memoryLimitBytes: limit } : {}) });
        expect(`${shape} at ${limit ?? "default"}: ${out.status}`, out.error).toBe(`${shape} at ${limit ?? "default"}: memory`);
        expect(valueOf(await run("export default () => [1, 2, 3].map((x) => x * 2)"))).toEqual([2, 4, 6]);
      }
    },
  },
  {
    name: "a run that fills the heap and holds it across an await fails no other run",
    productionOnly: { isolate: LOCAL_NO_MEMORY_LIMIT },
    async run({ start }) {
      // Alice fills the heap, keeps it, and awaits; Bob's small run starts during her await.
      let filled!: () => void;
      const hasFilled = new Promise<void>((resolve) => (filled = resolve));
      const alice = start(
        `import { filled } from "host";
        export default async () => {
          const keep = [];
          for (const size of [1e5, 1e4, 1e3]) {
            try { for (;;) keep.push(new Array(size).fill(keep.length)) } catch {}
          }
          filled();
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return keep.length;
        }`,
        { timeoutMs: 30_000, imports: { host: { filled: () => filled() } } },
      );
      let aliceEnded = false;
      void alice.result.then(() => (aliceEnded = true));
      await Promise.race([hasFilled, alice.result]);
      expect(aliceEnded, "Alice's run still holds the heap when Bob's starts").toBe(false);
      const bob = await start("export default () => [1, 2, 3].map((x) => x * 2)").result;
      expect(`${bob.status}: ${bob.error ?? ""}`).toBe("success: ");
      expect(valueOf(bob)).toEqual([2, 4, 6]);
      expect(["success", "memory"]).toContain((await alice.result).status);
      expect(valueOf(await start("export default () => typeof keep").result)).toBe("undefined");
    },
  },
  {
    name: "a run waiting for another run is cancelled promptly, and the one it waited for goes on",
    async run({ start }) {
      // The holder keeps the engine until the test opens its gate: the other run surely waits.
      const { holder, open } = heldRun(start);
      await holder.entered;
      const waiting = start("export default async () => { await new Promise((resolve) => setTimeout(resolve, 1000)); return 'ran' }");
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cancelledAt = performance.now();
      waiting.cancel();
      const out = await waiting.result;
      const tookMs = performance.now() - cancelledAt;
      // Ended while the run it waited for still holds the engine: it never waited for that run.
      expect(out.status).toBe("cancelled");
      expect(tookMs).toBeLessThan(within(100));
      open();
      expect(valueOf(await holder.result)).toBe("held");
    },
  },
  {
    name: "a run's deadline counts from its start, never from a wait for another run",
    async run({ start }) {
      // The holder keeps the engine past the other run's whole deadline (the test opens its gate
      // then): counted from the wait, that deadline would have passed before the run began.
      const { holder, open } = heldRun(start);
      await holder.entered;
      const deadline = 3_000;
      const waiting = start("export default async () => { await new Promise((resolve) => setTimeout(resolve, 100)); return 'in time' }", { timeoutMs: deadline }).result;
      await new Promise((resolve) => setTimeout(resolve, deadline + 500));
      open();
      const out = await waiting;
      expect(`${out.status}: ${out.error ?? ""}`).toBe("success: ");
      expect(valueOf(out)).toBe("in time");
      expect(valueOf(await holder.result)).toBe("held");
    },
  },
  {
    name: "a run started by a host call of another run (a tool that runs code) runs at once",
    async run({ start }) {
      const outer = await start(
        "import { inner } from 'host';\nexport default async () => { await new Promise((resolve) => setTimeout(resolve, 10)); return (await inner()) + 1 }",
        { timeoutMs: 3_000, imports: { host: { inner: async () => valueOf(await start("export default () => 41").result) } } },
      ).result;
      expect(valueOf(outer)).toBe(42);
      // Two levels deep, and a nested run that outlives the run that started it still ends well.
      let kept!: Promise<CodeExecutionResult>;
      const deep = async () => valueOf(await start("import { inner } from 'host';\nexport default async () => (await inner()) * 2", { imports: { host: { inner: async () => valueOf(await start("export default () => 20").result) } } }).result);
      const twice = await start("import { deep, spawn } from 'host';\nexport default async () => { spawn(); return (await deep()) + 2 }", {
        imports: { host: { deep, spawn: () => void (kept = start("export default async () => { await new Promise((r) => setTimeout(r, 200)); return 'late' }").result) } },
      }).result;
      expect(valueOf(twice)).toBe(42);
      expect(valueOf(await kept)).toBe("late");
    },
  },
  {
    name: "fetch to loopback is refused",
    async run({ run }) {
      const out = await run("export default async () => { const r = await fetch('http://127.0.0.1:8787/threads'); return r.status }");
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/'?fetch'? is not defined|not permitted to access the internet/);
    },
  },
  {
    name: "env and secrets are out of reach",
    async run({ run, state }) {
      await state.setEnv("SANDBOX_SECRET", "s3cret-value-7", { type: "secret" });
      const src = `export default function () {
        const found = [];
        try { found.push(JSON.stringify(this?.env ?? null)) } catch (e) { found.push(String(e)) }
        try { found.push(JSON.stringify(globalThis.process?.env ?? null)) } catch (e) { found.push(String(e)) }
        try { found.push(JSON.stringify(globalThis.env ?? null)) } catch (e) { found.push(String(e)) }
        found.push(Object.getOwnPropertyNames(globalThis).join(","));
        return found.join("\\n");
      }`;
      const out = await run(src);
      const text = JSON.stringify(out);
      expect(text).not.toContain("s3cret-value-7");
      expect(text).not.toContain("hello from weft"); // a Worker var of the test config
      expect(text).not.toMatch(/THREAD|LOADER|LEDGER/);
    },
  },
  {
    name: "globalThis and prototype tampering stays inside the sandbox",
    async run({ run }) {
      const out = await run(`export default () => {
        Object.prototype.polluted = "yes";
        Array.prototype.map = () => "hijacked";
        globalThis.JSON = { stringify: () => "hijacked", parse: () => "hijacked" };
        Object.defineProperty(Object.prototype, "then", { value: (r) => r("hijacked"), configurable: true });
        return "tampered";
      }`);
      // The host's prototypes and globals are untouched, whatever the sandbox returned.
      expect(({} as any).polluted).toBeUndefined();
      expect(({} as any).then).toBeUndefined();
      expect([1, 2].map((x) => x * 2)).toEqual([2, 4]);
      expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
      expect(["success", "error"]).toContain(out.status);
      const proto = await run('export default () => JSON.parse(\'{"__proto__": {"polluted": true}, "ok": 1}\')');
      const value = valueOf(proto) as Record<string, unknown>;
      expect(({} as any).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      // A later run starts clean.
      expect(valueOf(await run("export default () => [({}).polluted, [1].map((x) => x + 1)]"))).toEqual([undefined, [2]]);
    },
  },
  {
    name: "constructor.constructor reaches nothing of the host",
    async run({ run }) {
      const out = await run(`export default () => {
        try {
          const g = (() => {}).constructor.constructor("return globalThis")();
          return [typeof g.process, typeof g.fetch, typeof g.caches, typeof g.Deno, typeof g.__weftHost, typeof g.require].join(",");
        } catch (e) { return "refused: " + e.message }
      }`);
      const value = String(valueOf(out));
      expect(value === "undefined,undefined,undefined,undefined,undefined,undefined" || value.startsWith("refused: Code generation from strings disallowed")).toBe(true);
    },
  },
  {
    name: "a tool outside the calling tool's uses is refused",
    async run({ run, instance }) {
      const out = await run("import { throws_error } from 'tools';\nexport default () => throws_error({})", { imports: { tools: ["throws_error"] } });
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/^tool_not_allowed: tool "run_code" may not invoke "throws_error"/);
      const sneaky = await run("import { record_call } from 'tools';\nexport default () => globalThis.__weft.call('tools', 'throws_error', [{}])", { imports: { tools: ["record_call"] } });
      expect(sneaky.status).toBe("error");
      expect(sneaky.error).toMatch(/has no function "throws_error"/);
      const ran = ([...instance.store.calls.list(1000, 0)] as Array<{ toolName: string }>).filter((c) => c.toolName === "throws_error");
      expect(ran).toEqual([]);
    },
  },
  {
    name: "deep recursion ends with an error",
    async run({ run }) {
      const out = await run("const f = (n) => f(n + 1) + 1;\nexport default () => f(0)");
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/stack overflow|Maximum call stack size exceeded/);
    },
  },
  {
    name: "huge console output ends with an error at the log cap",
    async run({ run }) {
      const out = await run("export default () => { const line = 'y'.repeat(10000); for (let i = 0; i < 100000; i++) console.log(line); return 'done' }", { timeoutMs: 20_000 });
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/console output passed the \d+-byte cap/);
      expect(out.logs.join("").length).toBeLessThanOrEqual(256 * 1024);
    },
  },
  {
    name: "a result over the size cap ends with an error",
    async run({ run }) {
      const out = await run("export default () => 'z'.repeat(2 * 1024 * 1024)");
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/over the 1048576-byte cap/);
    },
  },
  {
    name: "a never-settling promise ends with timeout",
    async run({ run }) {
      const out = await run("export default () => new Promise(() => {})", { timeoutMs: 300 });
      expect(out.status).toBe("timeout");
      expect(out.durationMs).toBeLessThan(300 + 1000);
    },
  },
  {
    name: "a capability kept past the call refuses",
    async run({ run }) {
      let calls = 0;
      const imports = { host: { ping: async () => ++calls } };
      const out = await run(
        "import { ping } from 'host';\nexport default async () => { await ping(); setTimeout(() => ping().catch(() => {}), 30); globalThis.kept = ping; return 'returned' }",
        { imports },
      );
      expect(valueOf(out)).toBe("returned");
      await new Promise((r) => setTimeout(r, 120));
      expect(calls).toBe(1);
    },
  },
];

/**
 * A run that holds the engine (its turn) until `open()`: `holder.entered` resolves once it runs,
 * `holder.result` once it returns "held".
 */
function heldRun(start: Parameters<SandboxCase["run"]>[0]["start"]) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const handle = start("import { gate } from 'host';\nexport default async () => { await gate(); return 'held' }", {
    timeoutMs: 60_000,
    imports: { host: { gate: () => (entered(), gate) } },
  });
  return { holder: { entered: inside, result: handle.result }, open };
}
