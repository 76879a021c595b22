/**
 * Review (sandbox): an isolate run is started with `limits: { subRequests: 50 }` (docs/running-code.md "Running
 * code"), but with `globalOutbound: null` its `fetch` goes through the host's gateway, which the
 * runtime does not count as the isolate's subrequests: the host made every fetch the code asked
 * for, for as long as the deadline allowed, from the thread's Durable Object. QuickJS had no
 * bound either. A run's fetches must be bounded whatever the executor.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ISOLATE_SUBREQUESTS } from "../../src/sandbox/limits.js";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";
import { stubOrigin, unstubOrigin } from "./origin-stubs.js";

const ORIGIN = "https://count.review.test";
afterEach(() => unstubOrigin(ORIGIN));

for (const sandbox of ["quickjs", "isolate"] as const) {
  describe(`sandbox ${sandbox}`, () => {
    it(`a run makes at most ${ISOLATE_SUBREQUESTS} fetches through the host's gateway`, async () => {
      let made = 0;
      stubOrigin(ORIGIN, async () => {
        made++;
        return new Response("ok");
      });
      const id = await createThread();
      const out = await inThread(id, async (instance: any) => {
        const state = await codeState(instance, "call_review_fetch_count");
        const source = `export default async () => {
          let ok = 0, refused = "";
          for (let i = 0; i < 200; i++) { try { await fetch("${ORIGIN}/n" + i); ok++ } catch (e) { refused = e.message; break } }
          return { ok, refused };
        }`;
        return state.runCode(source, { sandbox, fetch: { allow: [ORIGIN] }, timeoutMs: 20_000 }).result;
      });
      expect(made, `the host made ${made} fetches for one run`).toBeLessThanOrEqual(ISOLATE_SUBREQUESTS);
      expect(out.status).toBe("success");
      expect((out.value as { refused: string }).refused).toMatch(/fetch/);
    });
  });
}
