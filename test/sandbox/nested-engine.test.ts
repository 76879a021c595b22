/**
 * Runs nested on one QuickJS turn (a host call of the running code starts another run) share the
 * holder's engine, even once one of them had it dropped: the next turn starts a fresh engine, but a
 * second heap beside the holder's, still in use, would take two 64 MiB heaps at once, past a
 * Worker isolate's 128 MB.
 */
import { expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "./code-state.js";
import { quickJsHeap } from "../../src/sandbox/heap.js";

it("a nested run after one that dropped the engine runs on the holder's heap, not a second one", async () => {
  const id = await createThread();
  const out = await inThread(id, async (instance: any) => {
    const state = await codeState(instance, "call_nested_engine");
    const heaps: Array<WebAssembly.Memory | null> = [];
    const nested = (source: string) => async () => (await state.runCode(source, { sandbox: "quickjs", timeoutMs: 500 }).result).status;
    const imports = {
      host: {
        heap: () => void heaps.push(quickJsHeap.current),
        // Cut midway by its deadline: its runtime cannot be freed, so the engine is dropped.
        looping: nested("export default () => { let x = 0; for (;;) x++; }"),
        plain: nested("export default () => 1"),
      },
    };
    const source = `import { heap, looping, plain } from "host";
export default async () => { heap(); const first = await looping(); const second = await plain(); heap(); return [first, second]; }`;
    const run = await state.runCode(source, { sandbox: "quickjs", timeoutMs: 30_000, imports }).result;
    return { status: run.status, value: run.value, sameHeap: heaps.length === 2 && heaps[0] === heaps[1] };
  });
  expect(out).toEqual({ status: "success", value: ["timeout", "success"], sameHeap: true });
}, 60_000);

it("a run nested late in its holder's run ends by the holder's deadline, so the turn lasts one deadline", async () => {
  const id = await createThread();
  const out = await inThread(id, async (instance: any) => {
    const state = await codeState(instance, "call_nested_late");
    let nested: any;
    const imports = {
      host: {
        // Started near the holder's 2 s deadline, with a 5 s deadline of its own, and never ending by itself.
        late: async () => {
          nested = await state.runCode("export default async () => { for (;;) await new Promise((r) => setTimeout(r, 50)); }", { sandbox: "quickjs", timeoutMs: 5000 }).result;
          return nested.status;
        },
      },
    };
    const source = `import { late } from "host";
export default async () => { await new Promise((r) => setTimeout(r, 1200)); return await late(); }`;
    const started = Date.now();
    // 800 ms between the nested start and the holder's deadline: a loaded machine took 300 ms of it.
    const run = await state.runCode(source, { sandbox: "quickjs", timeoutMs: 2000, imports }).result;
    while (!nested && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
    return { holder: run.status, nested: nested?.status, error: nested?.error, tookMs: Date.now() - started };
  });
  expect({ holder: out.holder, nested: out.nested, error: out.error }).toEqual({ holder: "timeout", nested: "timeout", error: "the run passed the deadline of the run that started it" });
  // Its own 5 s deadline would have held the engine past 6.2 s.
  expect(out.tookMs).toBeLessThan(4500);
}, 60_000);
