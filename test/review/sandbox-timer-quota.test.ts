/**
 * Review (sandbox, QuickJS executor): each `setTimeout` of QuickJS code is a timer of the host, the
 * thread's Durable Object, and workerd allows an I/O context 10,000 active timeouts. A run that
 * sets 10,000 long timers took them all: until it ended (up to its 60 s deadline) every other
 * `setTimeout` of the thread failed with `QuotaExceededError`, the thread's own deadlines, yields
 * and retries among them. A run's timers must leave the thread its own.
 */
import { expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

it("sandbox quickjs: a run that sets timers without bound leaves the thread able to set its own", async () => {
  const id = await createThread();
  const { thread, code } = await inThread(id, async (instance: any) => {
    const state = await codeState(instance, "call_review_timers");
    let filled!: () => void;
    const hasFilled = new Promise<void>((resolve) => (filled = resolve));
    const run = state.runCode(
      `import { filled } from "host";
      export default async () => {
        let set = 0, refused = "";
        try { for (let i = 0; i < 20000; i++) { setTimeout(() => {}, 59000); set++ } } catch (e) { refused = String(e.message) }
        // Holds its timers a while longer (not by a timer: those it may set are taken).
        await filled();
        return { set, refused };
      }`,
      { sandbox: "quickjs", timeoutMs: 20_000, imports: { host: { filled: () => (filled(), new Promise((resolve) => setTimeout(resolve, 300))) } } },
    );
    await Promise.race([hasFilled, run.result]);
    // The thread's own timer, set while the run holds its timers.
    let thread = "set";
    try {
      await new Promise((resolve) => setTimeout(resolve, 1));
    } catch (e) {
      thread = String(e);
    }
    const out = await run.result;
    return { thread, code: out };
  });
  expect(thread, "the thread could not set a timer while the run held its timers").toBe("set");
  expect(code.status).toBe("success");
});
