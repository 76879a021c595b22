/**
 * Review (QuickJS nested runs): a run nested on a turn after a sibling nested run filled the
 * engine's heap. The sibling's runtime cannot be freed (its heap is at its maximum), so the engine
 * is dropped, and its outcome says "the next run starts a fresh one"; the next nested run of the
 * same turn is pinned to that engine. Coverage: it passes (the memory limit ends the sibling before
 * the heap is full, so its runtime is freed and the engine kept).
 */
import { expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

it("a plain run nested after a sibling that filled the heap still runs", async () => {
  const id = await createThread();
  const out = await inThread(id, async (instance: any) => {
    const state = await codeState(instance, "call_nested_full");
    const seen: unknown[] = [];
    const nested = (source: string) => async () => {
      const r = await state.runCode(source, { sandbox: "quickjs", timeoutMs: 20_000 }).result;
      seen.push({ status: r.status, error: r.error });
      return r.status;
    };
    const imports = {
      host: {
        bomb: nested("export default () => { const a = []; for (;;) a.push(new Array(100000).fill(1.5)); }"),
        plain: nested("export default () => 1"),
      },
    };
    const source = `import { bomb, plain } from "host";
export default async () => { await bomb(); return await plain(); }`;
    const run = await state.runCode(source, { sandbox: "quickjs", timeoutMs: 30_000, imports }).result;
    return { holder: run.status, holderError: run.error, seen };
  });
  expect((out.seen as any[])[1]?.status).toBe("success");
}, 60_000);
