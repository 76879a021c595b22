/**
 * Hostile code against the QuickJS executor's yields (src/sandbox/yields.ts): code that controls
 * what it passes to runCode tries to break the shared instance for the runs after it, to escape its
 * deadline, or to read what it should not. Each case runs the attack, then a victim run (another
 * thread's, on the same engine) that must work and compute the right value.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";
import { fullScale, within } from "./bounds.js";

/** Spins about `ms` of CPU synchronously through instrumented loops (so it ticks). */
const SPIN = "const spin = (ms) => { const t = Date.now(); let x = 0; for (let i = 0; i < 5e6 && Date.now() - t < ms; i++) x = (x + i) % 1009; return x; };";

/** A victim run: recursion, strings and JSON, with yields; its value is known. */
const VICTIM = `${SPIN}
const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));
export default () => { spin(60); const s = JSON.stringify({ a: [1, 2, 3], f: fib(20) }); return s + ":" + "ab".repeat(3); }`;
const VICTIM_VALUE = '{"a":[1,2,3],"f":6765}:ababab';

type Start = (source: string, options?: object) => Promise<any>;

async function inSandbox<T>(fn: (start: Start, yields: () => number) => Promise<T>): Promise<T> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const { createThreadState } = await import("../../src/run/state.js");
    const state = createThreadState(instance.world, { callId: "call_hostile_yields", tool: instance.world.catalog.get("run_code") }, null);
    // A deadline far past any run here on a loaded machine (3 s was passed, inside a host function's
    // callback, by an attack of a few hundred milliseconds): the deadline cases set their own.
    const start = (source: string, options?: object) => state.runCode(source, { sandbox: "quickjs", timeoutMs: 30_000, ...options }).result;
    const { yieldCount } = await import("../../src/sandbox/quickjs.js");
    return fn(start, yieldCount);
  });
}

/** Another user's run on the same engine, after the attack: it must succeed with its value. */
async function victim(): Promise<any> {
  return inSandbox((start) => start(VICTIM, { timeoutMs: 30_000 }));
}

/** Runs `source` as the attacker, then the victim twice (the second on whatever the first left). */
async function attackThenVictim(source: string, options?: object): Promise<{ attack: any; ms: number; yielded: number; fresh: boolean; victims: any[] }> {
  const { attack, ms, yielded, fresh } = await inSandbox(async (start, yields) => {
    const { quickJsHeap } = await import("../../src/sandbox/heap.js");
    await start("export default () => 1");
    const heap = quickJsHeap.current;
    const before = yields();
    const t0 = performance.now();
    const attack = await start(source, options);
    const ms = performance.now() - t0;
    // Whether the attack's engine was dropped (a new heap appears with the next run's engine).
    await start("export default () => 1");
    return { attack, ms, yielded: yields() - before, fresh: quickJsHeap.current !== heap };
  });
  const victims = [await victim(), await victim()];
  console.log(`hostile-yields: attack ${attack.status} in ${ms.toFixed(0)} ms, ${yielded} yields, engine ${fresh ? "dropped" : "kept"}, logs ${JSON.stringify(attack.logs).slice(0, 200)}: ${String(attack.error ?? JSON.stringify(attack.value)).slice(0, 300)}; victims: ${victims.map((v) => `${v.status} ${String(v.error ?? "").slice(0, 200)}`).join(" | ")}`);
  return { attack, ms, yielded, fresh, victims };
}

function expectVictimsWell(victims: any[]): void {
  for (const v of victims) expect(v, String(v.error)).toMatchObject({ status: "success", value: VICTIM_VALUE });
}

const NO_YIELDS = "const stopYields = () => { const name = String(stopYields).match(/__weft_ticks\\d*/)[0]; eval(name + ' = 1e15'); };";

describe("QuickJS yields against hostile code", () => {
  it("a tick inside a host function's call back into QuickJS (console.log of an object whose toString spins) does not suspend there: the host gets the text and the engine is kept", async () => {
    // format() ends in args.map(...).join(" "): replaced, console.log hands the host an object, and
    // the host's getString calls its toString synchronously, inside the host function `log`, while
    // the run's asynchronous entry is open: the tick may suspend in the middle of that call.
    const source = `${SPIN}
Array.prototype.join = function () { return { toString() { spin(40); return "x"; } }; };
export default () => { for (let i = 0; i < 3; i++) console.log("hi"); return "attacker done"; }`;
    const { attack, fresh, victims } = await attackThenVictim(source);
    expectVictimsWell(victims);
    expect(attack).toMatchObject({ status: "success", value: "attacker done" });
    // Observed: logs ["", "", ""] (the host read a null pointer the unwinding call returned), and the
    // engine aborted on its leak check when the run's runtime was freed, so it was dropped.
    expect(attack.logs).toEqual(["x", "x", "x"]);
    expect(fresh, "the engine was dropped after a run that ended in success").toBe(false);
  }, 120_000);

  // Recursion to QuickJS's own check (256 KiB of its stack). "ticking": the code as written, whose
  // instrumentation calls the host's tick (JavaScript frames on top of the wasm ones) every 1,000
  // entries, also at the deepest point; "yields stopped": the code first sets its own counter out
  // of reach (it reads the counter's name from its instrumented text), so nothing ticks.
  it("reportProgress with JSON.stringify replaced (the host's getString runs the guest's toString) does not suspend inside the host function", async () => {
    const source = `${SPIN}
const real = JSON.stringify;
JSON.stringify = (v) => ({ toString() { spin(40); return real(v); } });
export default () => { for (let i = 0; i < 3; i++) reportProgress(i); return 1; }`;
    const { attack, fresh, victims } = await attackThenVictim(source);
    expectVictimsWell(victims);
    expect(attack, String(attack.error)).toMatchObject({ status: "success", value: 1 });
    expect(fresh, "the engine was dropped after a run that ended in success").toBe(false);
  }, 120_000);
});

describe("QuickJS yields against hostile code: attacks that held (the victims after each still succeed)", () => {
  const probes: Record<string, string> = {
    "result getString": `${SPIN}
export default () => { JSON.stringify = () => ({ toString() { spin(40); return "1"; } }); return 3; }`,
    "error dump getters": `${SPIN}
export default () => { throw { get name() { spin(40); return "E"; }, get message() { spin(40); return "m"; }, toJSON() { spin(40); return {}; } }; }`,
  };
  probes["host call with JSON.stringify replaced"] = `${SPIN}
import { f } from "host";
const real = JSON.stringify;
export default async () => { JSON.stringify = (v) => ({ toString() { spin(40); return real(v); } }); const out = []; for (let i = 0; i < 3; i++) { try { out.push(await f(i)); } catch (e) { out.push(String(e)); } } return out; }`;
  Object.assign(probes, {
    "sort comparator": `${SPIN}
export default () => { const a = Array.from({ length: 300 }, (_, i) => (i * 7919) % 300); a.sort((x, y) => { spin(1); return x - y; }); return a.every((v, i) => v === i); }`,
    "proxy trap and getter from native": `${SPIN}
export default () => { const p = new Proxy({}, { get(t, k) { spin(30); return k === "toJSON" ? undefined : 1; }, ownKeys() { spin(30); return ["a", "b"]; }, getOwnPropertyDescriptor() { return { value: 1, enumerable: true, configurable: true }; } });
  const o = { get g() { spin(30); return 2; } }; return JSON.stringify([p, o, String({ toString() { spin(30); return "s"; } }), [3].map((x) => { spin(30); return x; })]); }`,
    "finally, generator, async": `${SPIN}
function* g() { try { spin(30); yield 1; spin(30); yield 2; } finally { spin(30); } }
export default async () => { let r = 0; try { for (const v of g()) r += v; } finally { spin(30); } await null; spin(30); const f = async () => { spin(30); await 0; spin(30); return 5; }; return r + await f(); }`,
    "bound-function recursion to the stack limit, yield at the bottom": `${SPIN}
export default () => { let f = () => spin(50); let n = 0; try { for (; n < 200000; n++) { f = f.bind(null); } f(); return "ran " + n; } catch (e) { return String(e) + " at " + n; } }`,
    "deep bound chain probed to just under the limit": `${SPIN}
const make = (n) => { let f = () => spin(50); for (let i = 0; i < n; i++) f = f.bind(null); return f; };
export default () => { let lo = 0, hi = 400000; while (hi - lo > 50) { const mid = (lo + hi) >> 1; try { make(mid).call(); lo = mid; } catch { hi = mid; } } make(lo).call(); return lo; }`,
    "proxy get-trap recursion to the stack limit (the run itself may end with the engine's failure: V8's stack can run out before QuickJS's check, a known gap)": `${SPIN}
export default () => { let depth = 0; const h = { get(t, k) { depth++; return Reflect.get(t, k); } }; let o = { get v() { spin(50); return depth; } }; for (let i = 0; i < 100000; i++) o = new Proxy(o, h); try { return o.v; } catch (e) { return String(e) + " " + depth; } }`,
    "heap near full, then spin": `${SPIN}
export default () => { const keep = []; try { for (;;) keep.push(new Array(1e5).fill(1.5)); } catch (e) { } keep.pop(); keep.pop(); spin(300); return keep.length; }`,
    "call __weftTick directly everywhere": `${SPIN}
export default () => { let n = 0; const t0 = Date.now(); while (Date.now() - t0 < 200) { __weftTick(); n++; } return typeof __weftTick() + " " + Object.getOwnPropertyNames(__weftTick).join() + " " + String(__weftTick); }`,
    "module-level spin at evaluation": `${SPIN}
spin(100);
export default () => 7;`,
  });
  // Each f(n, s) recurses n levels through native code; at the bottom it spins (and yields) when s.
  const shapes: Record<string, string> = {
    sort: "const f = (n, s) => { let r = 0; [2, 1].sort((a, b) => { r = n === 0 ? (s ? spin(60) * 0 : 0) : f(n - 1, s) + 1; return a - b; }); return r; };",
    replace: "const f = (n, s) => { let r = 0; 'a'.replace(/a/, () => { r = n === 0 ? (s ? spin(60) * 0 : 0) : f(n - 1, s) + 1; return ''; }); return r; };",
    toJSON: "const f = (n, s) => { let r = 0; JSON.stringify({ toJSON() { r = n === 0 ? (s ? spin(60) * 0 : 0) : f(n - 1, s) + 1; return 1; } }); return r; };",
  };
  for (const [shape, def] of Object.entries(shapes)) {
    probes[`recursion through ${shape} to the deepest, yield at the bottom`] = `${SPIN}
${def}
const ok = (d) => { try { f(d, false); return true; } catch { return false; } };
export default () => { let a = 1; while (ok(a * 2)) a *= 2; let b = a * 2; while (b - a > 1) { const m = (a + b) >> 1; if (ok(m)) a = m; else b = m; } return [f(a - 2, true), a - 2]; }`;
  }
  const timed: Record<string, string> = {
    "eval loop": `export default () => { eval("let x = 0; for (;;) x++"); }`,
    "new Function loop": `export default () => { new Function("let x = 0; for (;;) x++")(); }`,
    "regex backtracking": `export default () => /(a+)+$/.test("a".repeat(40) + "b")`,
    "instrumented loop": `export default () => { let x = 0; for (;;) x++; }`,
  };
  for (const [name, source] of Object.entries(timed)) {
    it(`held, the deadline: ${name}`, async () => {
      const { attack, ms, victims } = await attackThenVictim(source, { timeoutMs: 1000 });
      expectVictimsWell(victims);
      expect(attack.status).toBe("timeout");
      expect(ms).toBeLessThan(within(1500));
    }, 150_000);
  }
  for (const [name, source] of Object.entries(probes)) {
    // Seconds each, beside shorter attacks of their kind: `npm run sandbox` runs them.
    const slow = ["sort comparator", "bound-function recursion to the stack limit, yield at the bottom", "deep bound chain probed to just under the limit"].includes(name);
    it.runIf(fullScale() || !slow)(`held: ${name}`, async () => {
      const { victims } = await attackThenVictim(source, { imports: { host: { f: async (x: number) => x * 2 } } });
      expectVictimsWell(victims);
    }, 150_000);
  }
});
