/**
 * The QuickJS executor's yields (src/sandbox/yields.ts) keep the shared instance sound: a nested
 * run that works while the run that started it is suspended in a yield never suspends itself, and
 * a yield deep in a recursion (up to the deepest QuickJS allows) resumes where it was. After each,
 * the next run on the engine works.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";

/** Spins about `ms` of CPU synchronously (by the clock where it moves, else a fixed count). */
const SPIN = "const spin = (ms) => { const t = Date.now(); let x = 0; for (let i = 0; i < 5e6 && Date.now() - t < ms; i++) x = (x + i) % 1009; return x; };";

async function inSandbox<T>(fn: (start: (source: string, options?: object) => Promise<any>, yields: () => number) => Promise<T>): Promise<T> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../../src/run/state.js");
    const state = createThreadState(instance.world, { callId: "call_yields", tool: instance.world.catalog.get("run_code") }, null);
    const start = (source: string, options?: object) => state.runCode(source, { sandbox: "quickjs", timeoutMs: 10_000, ...options }).result;
    const { yieldCount } = await import("../../src/sandbox/quickjs.js");
    return fn(start, yieldCount);
  });
}

describe("QuickJS yields", () => {
  it("a nested run that works while its holder is suspended in a yield runs through without suspending, and both end well", async () => {
    const { outer, nested, yielded, after } = await inSandbox(async (start, yields) => {
      let nested: any;
      const before = yields();
      const outer = await start(
        `import { inner } from 'host';\n${SPIN}\nexport default async () => { const p = inner(); spin(300); return (await p) + 1 }`,
        {
          imports: {
            host: {
              inner: async () => {
                nested = await start(`${SPIN}\nexport default () => { spin(200); return 41 }`);
                return nested.value;
              },
            },
          },
        },
      );
      const yielded = yields() - before;
      const after = await start("export default () => 'fine'");
      return { outer, nested, yielded, after };
    });
    expect(nested).toMatchObject({ status: "success", value: 41 });
    expect(outer).toMatchObject({ status: "success", value: 42 });
    expect(yielded).toBeGreaterThan(0);
    expect(after).toMatchObject({ status: "success", value: "fine" });
  }, 120_000);

  it("a run that yields deep in a recursion, up to the deepest QuickJS allows, resumes where it was", async () => {
    const outs = await inSandbox(async (start, yields) => {
      const results: Array<{ depth: string; out: any; yielded: number }> = [];
      for (const depth of ["100", "1000", "max - 5"]) {
        const before = yields();
        const out = await start(`${SPIN}
const probe = (n) => { try { return probe(n + 1) } catch { return n } };
const f = (n) => (n === 0 ? spin(100) * 0 : f(n - 1) + 1);
export default () => { const max = probe(0); const depth = ${depth}; return [f(depth), depth, max] }`);
        results.push({ depth, out, yielded: yields() - before });
      }
      results.push({ depth: "after", out: await start("export default () => 'fine'"), yielded: 0 });
      return results;
    });
    for (const { depth, out, yielded } of outs.slice(0, 3)) {
      expect(out.status, `${depth}: ${out.error}`).toBe("success");
      expect(out.value[0]).toBe(out.value[1]);
      expect(yielded, depth).toBeGreaterThan(0);
    }
    expect(outs[3]!.out).toMatchObject({ status: "success", value: "fine" });
  }, 120_000);
});
