/**
 * A QuickJS run whose deadline passes while it starts (a loaded isolate, a fresh engine's load, a
 * large source to instrument) ends `timeout`, as it would had its code begun: a new context's first
 * interrupt check comes in weft's prelude, before the caller's code, and an interrupt there is the
 * deadline, not an error. It ended `error` ("InternalError: interrupted") before: the likely way a
 * 500 ms infinite loop ended `error` once in 22 clean-clone npm test runs, on a loaded machine.
 */
import { expect, it } from "vitest";
import { runInNewThread } from "./code-state.js";

it("a run whose deadline passes while it starts ends with timeout, not error", async () => {
  // About 35 KB to instrument (instrument.ts parses it all) takes the start well past a 1 ms
  // deadline; the clock moves during synchronous work here. On a loaded engine no timer runs
  // between the run's start and its prelude (a fresh engine's load would let the deadline's timer
  // end the run first), so a run loads it before.
  expect((await runInNewThread("export default () => 1", { sandbox: "quickjs" })).status).toBe("success");
  const helpers = Array.from({ length: 500 }, (_, i) => `function f${i}(a, b) { for (let i = 0; i < a; i++) b += i; return b }`);
  const source = `export default () => { for (;;) {} }\n${helpers.join("\n")}`;
  const out = await runInNewThread(source, { sandbox: "quickjs", timeoutMs: 1 });
  expect(out.status, `error: ${out.error}`).toBe("timeout");
  expect(out.error).toBe("the run passed its 1 ms deadline");
});
