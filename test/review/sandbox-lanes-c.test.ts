/**
 * Review (sandbox lanes and timers, review-26c) of 468da39:
 * - isolate: console lines and imports went in two lanes; a call made after console lines reached
 *   the host before them once 16 lines were in flight, so a tool ran (and its events were
 *   recorded) before the lines the code wrote ahead of calling it. Before the lanes, calls on the
 *   one stub arrived in the order the code made them.
 * - QuickJS: a `setTimeout` refused (past 1,000 pending) left its host operation pending for ever,
 *   so a run that returned a promise nothing could settle was no longer told so: it waited for
 *   its deadline.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Cancellation } from "../../src/sandbox/cancel.js";
import type { SandboxRequest } from "../../src/sandbox/executor.js";
import { IsolateExecutor } from "../../src/sandbox/isolate.js";
import type { CodeExecutionOptions, CodeExecutionResult } from "../../src/tools/thread-state.js";
import { createThread, inThread } from "../helpers.js";
import { runInNewThread } from "../sandbox/code-state.js";

const run = (source: string, options: CodeExecutionOptions): Promise<CodeExecutionResult> => runInNewThread(source, options, "call_review_26c");

describe("sandbox lanes and timers (review-26c)", () => {
  it("isolate: a call made after console lines reaches the host after them", async () => {
    const id = await createThread();
    const out = await inThread(id, async () => {
      const executor = new IsolateExecutor((env as unknown as { LOADER: WorkerLoader }).LOADER);
      const lines: string[] = [];
      const request: SandboxRequest = {
        filename: "code.js",
        source: `import { seen } from "host";
          export default async () => {
            for (let i = 0; i < 40; i++) console.log("line " + i);
            return await seen();
          }`,
        modules: {},
        execute: { fn: "default", args: [] },
        globals: {},
        imports: { host: { seen: () => lines.length } },
        timeoutMs: 10_000,
        memoryLimitBytes: 64 * 1024 * 1024,
        maxLogBytes: 1024 * 1024,
        maxResultBytes: 1024 * 1024,
        fetchAllow: [],
        scope: `review-26c-${id}`,
        cancellation: new Cancellation(),
        onLog: (_level, text) => void lines.push(text),
      };
      return executor.run(request);
    });
    expect(out.status).toBe("success");
    expect((out as { value?: unknown }).value).toBe(40);
  });

  it("quickjs: a refused setTimeout leaves nothing pending, so a promise nothing can settle is told at once", async () => {
    const out = await run(
      `export default () => {
        const ids = [];
        for (let i = 0; i < 1000; i++) ids.push(setTimeout(() => {}, 60000));
        let refused = false;
        try { setTimeout(() => {}, 60000); } catch { refused = true; }
        for (const id of ids) clearTimeout(id);
        if (!refused) return "not refused";
        return new Promise(() => {});
      }`,
      { sandbox: "quickjs", timeoutMs: 4_000 },
    );
    expect(out.status).toBe("timeout");
    expect(out.error ?? "").toMatch(/never settles/);
    expect(out.durationMs).toBeLessThan(3_000);
  });
});
