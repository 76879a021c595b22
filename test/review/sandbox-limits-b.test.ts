/**
 * Review (sandbox limits, review-26b): the limits added by review-sandbox must not refuse or stall
 * code that stays within them.
 * - QuickJS: `clearTimeout` cleared the timer in the VM only; the host's timer stayed pending until
 *   its delay passed and counted against MAX_RUN_TIMERS, so a debounce loop (set, clear, set...)
 *   hit "at most 1,000 timers pending" with one timer pending.
 * - isolate: the prelude took any refusal whose message contained "this sandbox call has ended" as
 *   the host's word that the run ended, so a tool's own error saying so made every later call of
 *   the live run (console lines, imports) fail.
 * - isolate: console lines waited for a slot behind the run's import calls, so a run that left 16
 *   slow calls going (not awaited) could not return before them: its reply waits for its lines.
 */
import { describe, expect, it } from "vitest";
import type { CodeExecutionOptions, CodeExecutionResult } from "../../src/tools/thread-state.js";
import { runInNewThread } from "../sandbox/code-state.js";

const run = (source: string, options: CodeExecutionOptions): Promise<CodeExecutionResult> => runInNewThread(source, options, "call_review_26b");

describe("sandbox limits (review-26b)", () => {
  it("quickjs: timers cleared with clearTimeout do not count against the 1,000 pending", async () => {
    const out = await run(
      `export default () => {
        let t;
        for (let i = 0; i < 3000; i++) { clearTimeout(t); t = setTimeout(() => {}, 50000); }
        clearTimeout(t);
        return "debounced";
      }`,
      { sandbox: "quickjs", timeoutMs: 10_000 },
    );
    expect(out.error ?? "").toBe("");
    expect(out.status).toBe("success");
    expect(out.value).toBe("debounced");
  });

  for (const sandbox of ["isolate", "quickjs"] as const) {
    it(`${sandbox}: a tool's own error saying "this sandbox call has ended" does not end the live run's calls`, async () => {
      const out = await run(
        `import { flaky, echo } from "host";
        export default async () => {
          let caught = "";
          try { await flaky() } catch (e) { caught = String(e.message) }
          console.log("after");
          return { caught, echoed: await echo(7) };
        }`,
        {
          sandbox,
          report: true,
          timeoutMs: 10_000,
          imports: {
            host: {
              flaky: () => {
                throw new Error("upstream: this sandbox call has ended");
              },
              echo: (n: unknown) => n,
            },
          },
        },
      );
      expect(out.error ?? "").toBe("");
      expect(out.status).toBe("success");
      expect(out.value).toEqual({ caught: "upstream: this sandbox call has ended", echoed: 7 });
      expect(out.logs).toContain("after");
    });

    it(`${sandbox}: console lines are not held behind 16 slow import calls the code did not await`, async () => {
      const out = await run(
        `import { slow } from "host";
        export default () => {
          for (let i = 0; i < 16; i++) slow().catch(() => {});
          console.log("returning");
          return "done";
        }`,
        { sandbox, report: true, timeoutMs: 3_000, imports: { host: { slow: () => new Promise((resolve) => setTimeout(resolve, 6_000)) } } },
      );
      expect(out.error ?? "").toBe("");
      expect(out.status).toBe("success");
      expect(out.logs).toEqual(["returning"]);
      expect(out.durationMs).toBeLessThan(3_000);
    });
  }
});
