/**
 * Review (sandbox): the run's values are capped at 1 MiB encoded where they enter the host (the
 * result, docs/running-code.md "Running code"; a fetch body), but the arguments of a call to a host import had
 * no cap: the host decoded whatever text the code sent, each call another copy in the thread's
 * memory (an isolate can send tens of MiB per call, and had thousands of calls in flight).
 * Arguments of a host import must be held to the same cap.
 */
import { describe, expect, it } from "vitest";
import { MAX_VALUE_BYTES } from "../../src/sandbox/limits.js";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

for (const sandbox of ["quickjs", "isolate"] as const) {
  describe(`sandbox ${sandbox}`, () => {
    it("an import call whose arguments are over the value cap is refused before the host decodes them", async () => {
      let largest = 0;
      const id = await createThread();
      const out = await inThread(id, async (instance: any) => {
        const state = await codeState(instance, "call_review_args");
        const source = `import { take } from "host";
          export default async () => { try { await take("a".repeat(8 * 1024 * 1024)); return "taken" } catch (e) { return "refused: " + e.message } }`;
        return state.runCode(source, { sandbox, timeoutMs: 20_000, imports: { host: { take: (text: unknown) => void (largest = Math.max(largest, String(text).length)) } } }).result;
      });
      expect(largest, `the host import got ${largest} characters`).toBeLessThanOrEqual(MAX_VALUE_BYTES);
      expect(out.status).toBe("success");
      expect(String(out.value)).toMatch(/^refused: .*1048576-byte cap/);
    });
  });
}
