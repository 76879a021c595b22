/**
 * Review (sandbox): a granted `fetch` is performed by the host (the thread's Durable Object), so
 * what the host reads of a response is the Durable Object's memory and connections, not the
 * sandbox's. The documented cap ("a body over the value cap is refused", session.ts) must hold
 * while the body is read, not after the whole body sits in the host's memory; and a fetch still
 * in flight when its run ends (deadline, cancel) must be let go, not read on for ever.
 *
 * The origin is named by the code's caller, so its answer is attacker-controlled: here a stub of
 * the Worker's `fetch` (the host's outbound) plays it, counting what the host pulls of its body.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExecutorName } from "../../src/sandbox/executor.js";
import { MAX_VALUE_BYTES } from "../../src/sandbox/limits.js";
import type { CodeExecutionOptions, CodeExecutionResult } from "../../src/tools/thread-state.js";
import { runInNewThread } from "../sandbox/code-state.js";
import { stubOrigin, unstubOrigin } from "./origin-stubs.js";

const ORIGIN = "https://body.review.test";
const CHUNK = 64 * 1024;

/** A response body the test controls: how many bytes the host pulled, and whether it let go. */
interface Body {
  pulled: number;
  cancelled: boolean;
  /** Ends the stream (cleanup: a body that never ends must not outlive its test). */
  stop(): void;
}

let bodies: Body[] = [];

afterEach(() => {
  unstubOrigin(ORIGIN);
  for (const b of bodies) b.stop();
  bodies = [];
});

/**
 * Replaces the Worker's outbound `fetch` (what the host's gateway calls) with an origin whose body
 * is `totalBytes` long (Infinity: never ends), sent in chunks of `chunkBytes` every `everyMs`. As a real fetch
 * does, an aborted signal errors the body.
 */
function serve(totalBytes: number, everyMs = 0, chunkBytes = CHUNK): Body {
  let stopped = false;
  // The stream belongs to the thread's I/O context: stopping only tells its next pull to give nothing.
  const body: Body = { pulled: 0, cancelled: false, stop: () => void (stopped = true) };
  bodies.push(body);
  stubOrigin(ORIGIN, async (_input: RequestInfo | URL, init?: RequestInit) => {
    const stream = new ReadableStream<Uint8Array>(
      {
        start(c) {
          init?.signal?.addEventListener("abort", () => {
            body.cancelled = true;
            try {
              c.error(new DOMException("aborted", "AbortError"));
            } catch {}
          });
        },
        async pull(c) {
          if (stopped || body.cancelled) return;
          if (everyMs > 0) await new Promise((r) => setTimeout(r, everyMs));
          if (stopped || body.cancelled) return;
          const size = Math.min(chunkBytes, totalBytes - body.pulled);
          if (size <= 0) return c.close();
          body.pulled += size;
          c.enqueue(new Uint8Array(size).fill(0x61));
        },
        cancel() {
          body.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(stream, { status: 200, headers: { "content-type": "text/plain" } });
  });
  return body;
}

const runIn = (sandbox: ExecutorName, source: string, options: CodeExecutionOptions): Promise<CodeExecutionResult> => runInNewThread(source, { sandbox, ...options }, "call_review_fetch");

const FETCH_LENGTH = `export default async (url) => {
  try { const r = await fetch(url); return "read " + (await r.text()).length } catch (e) { return "refused: " + e.message }
}`;

for (const sandbox of ["quickjs", "isolate"] as const) {
  describe(`sandbox ${sandbox}`, () => {
    it("a granted fetch's body over the cap is refused after at most the cap is read, not after the whole body is in the host's memory", async () => {
      const body = serve(48 * 1024 * 1024);
      const out = await runIn(sandbox, FETCH_LENGTH, { fetch: { allow: [ORIGIN] }, timeoutMs: 20_000, execute: { fn: "default", args: [`${ORIGIN}/big`] } });
      expect(out.status).toBe("success");
      expect(String(out.value)).toMatch(/^refused: .*over the 1048576-byte cap/);
      // The host may read one chunk past the cap to see it is over; it read the whole 48 MiB.
      expect(body.pulled, `the host pulled ${body.pulled} bytes of the body`).toBeLessThanOrEqual(MAX_VALUE_BYTES + 2 * CHUNK);
      expect(body.cancelled, "the rest of the body was let go").toBe(true);
    });

    it("a granted fetch whose body never ends is let go when the run's deadline passes", async () => {
      // A trickle: never over the cap, never done. The run ends at its deadline.
      const body = serve(Infinity, 20, 100);
      const out = await runIn(sandbox, FETCH_LENGTH, { fetch: { allow: [ORIGIN] }, timeoutMs: 500, execute: { fn: "default", args: [`${ORIGIN}/trickle`] } });
      expect(out.status).toBe("timeout");
      // The run has ended; its fetch must not go on reading into the thread's memory (and holding
      // one of its few connections) for ever.
      await new Promise((r) => setTimeout(r, 500));
      const after = body.pulled;
      await new Promise((r) => setTimeout(r, 500));
      expect(body.cancelled, "the body of the ended run's fetch was let go").toBe(true);
      expect(body.pulled, "the host still reads the body of an ended run's fetch").toBe(after);
    });
  });
}

for (const sandbox of ["quickjs", "isolate"] as const) {
  it(`sandbox ${sandbox}: a granted origin answering 205 Reset Content reaches the code as a response with its status`, async () => {
    stubOrigin(ORIGIN, async () => new Response(null, { status: 205 }));
    const source = "export default async (url) => { const r = await fetch(url); return [r.status, await r.text()]; }";
    const out = await runIn(sandbox, source, { fetch: { allow: [ORIGIN] }, execute: { fn: "default", args: [`${ORIGIN}/reset`] } });
    expect({ status: out.status, value: out.value, error: out.error }).toEqual({ status: "success", value: [205, ""], error: undefined });
  });
}
