/**
 * Review (sandbox): what a run can make the host hold or store must stay within the run's limits,
 * whatever the code does to its own side of the boundary.
 *
 * - The encoded result is capped at 1 MiB (docs/running-code.md "Running code"); the host decodes the text the
 *   sandbox sends, and code that replaces its own `JSON` chooses that text. A short text must not
 *   decode to a value far larger than the cap in the thread's memory.
 * - Console output is capped at 256 KiB; with `report: true` each line is a stored `code_log`
 *   event. A line with no text must still count, or a loop of `console.log()` stores events
 *   without bound.
 * - `reportProgress(data)` with `report: true` stores a `code_progress` event per call: its volume
 *   must be bounded as the console's is, not only by the deadline.
 */
import { describe, expect, it } from "vitest";
import type { ExecutorName } from "../../src/sandbox/executor.js";
import { MAX_LOG_BYTES, MAX_VALUE_BYTES } from "../../src/sandbox/limits.js";
import type { CodeExecutionOptions, CodeExecutionResult } from "../../src/tools/thread-state.js";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

async function runIn(sandbox: ExecutorName, source: string, options: CodeExecutionOptions = {}): Promise<{ out: CodeExecutionResult; events: Array<{ type: string; data: any }> }> {
  const id = await createThread();
  return inThread(id, async (instance: any) => {
    const state = await codeState(instance, "call_review_volume");
    const out = await state.runCode(source, { sandbox, ...options }).result;
    return { out, events: instance.store.events.since(0, 1_000_000) };
  });
}

/** The byte size a decoded value holds in the host: strings and byte arrays, summed through containers. */
function heldBytes(value: unknown, seen = new Set<unknown>()): number {
  if (typeof value === "string") return value.length;
  if (value === null || typeof value !== "object" || seen.has(value)) return 0;
  seen.add(value);
  if (ArrayBuffer.isView(value)) return value.byteLength;
  let sum = 0;
  const items = value instanceof Map ? [...value].flat() : value instanceof Set ? [...value] : Object.values(value);
  for (const item of items) sum += heldBytes(item, seen);
  return sum;
}

for (const sandbox of ["quickjs", "isolate"] as const) {
  describe(`sandbox ${sandbox}`, () => {
    it("a result of a few dozen bytes encoded never decodes to a value far over the result cap in the host", async () => {
      // The code's own JSON.stringify is what its result is encoded with: it sends a byte array
      // "of length 32 MiB" in 45 bytes of text.
      const { out } = await runIn(sandbox, `export default () => {
        JSON.stringify = () => '{"$weft":"bytes","v":{"length":33554432}}';
        return "anything";
      }`);
      const held = out.status === "success" ? heldBytes(out.value) : 0;
      expect(held, `the host decoded a ${held}-byte value from the run's result`).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    });

    it("arguments a run sends to a host import never decode to a value far over the value cap", async () => {
      let received = 0;
      const { out } = await runIn(
        sandbox,
        `import { take } from "host";
        export default async () => {
          const real = JSON.stringify;
          JSON.stringify = () => '[{"$weft":"bytes","v":{"length":33554432}}]';
          let sent;
          try { sent = take("x") } finally { JSON.stringify = real }
          try { await sent } catch {}
          return "done";
        }`,
        { imports: { host: { take: (value: unknown) => void (received = heldBytes(value)) } } },
      );
      expect(out.status).toBe("success");
      expect(received, `the import got a ${received}-byte value`).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    });

    it("empty console lines count against the console cap: a loop of console.log() cannot make lines without bound", async () => {
      // 300,000 lines, each at least its newline: more than the 256 KiB cap. With `report: true`
      // each would be a stored code_log event; without it (here, so the isolate's lines travel back
      // with the reply instead of one RPC each, see sandbox-host-flood.test.ts) each is an entry of `logs`.
      // The longest deadline: QuickJS takes about 12 s for these lines on an idle machine, and a
      // loaded one passed 30 s (the run ended timeout before the cap).
      const { out } = await runIn(sandbox, "export default () => { for (let i = 0; i < 300000; i++) console.log(); return 'done' }", { timeoutMs: 60_000 });
      expect(out.logs.length, `${out.logs.length} console lines kept`).toBeLessThanOrEqual(MAX_LOG_BYTES);
      expect(out.status).toBe("error");
      expect(out.error).toMatch(/console output passed the \d+-byte cap/);
    });

    it("reportProgress volume is capped like the console's: a run cannot store megabytes of code_progress events", async () => {
      // 40 calls of 100 KB: 4 MB of events, sixteen times the console's cap.
      const { out, events } = await runIn(sandbox, "export default () => { const chunk = 'p'.repeat(100000); for (let i = 0; i < 40; i++) reportProgress(chunk); return 'done' }", { report: true, timeoutMs: 30_000 });
      const stored = events.filter((e) => e.type === "code_progress").reduce((sum, e) => sum + JSON.stringify(e.data).length, 0);
      expect(stored, `${stored} bytes of code_progress events stored`).toBeLessThanOrEqual(MAX_VALUE_BYTES);
      expect(out.status).toBe("error");
    });
  });
}
