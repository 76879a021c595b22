/**
 * Review (sandbox, hostile code): a run's result is capped at 1 MiB and its console at 256 KiB,
 * but the error it ends with is text the code chooses whole: its thrown message, or any value it
 * throws. With `report: true` that error is stored in the run's `code_finished` event, and a
 * message of 3 MB (or 0.9 MB of control characters, six bytes each as JSON) made a row Cloudflare
 * refuses: `runCode`, which never throws, rejected with SQLITE_TOOBIG, and the tool that ran the
 * code failed. Without `report` the tool got the whole text to keep (the example's `compute`
 * returns it as its error). A run's error must stay within what an event and a row can hold.
 */
import { describe, expect, it } from "vitest";
import { MAX_EVENT_BYTES } from "../../src/run/port-world.js";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

const THROWS = {
  "a 3 MB message": "export default () => { throw new Error('e'.repeat(3_000_000)) }",
  "0.9 MB of control characters thrown as a string": "export default () => { throw '\\u0001'.repeat(900_000) }",
};

for (const sandbox of ["quickjs", "isolate"] as const) {
  describe(`sandbox ${sandbox}`, () => {
    for (const [shape, source] of Object.entries(THROWS)) {
      it(`code that throws ${shape} ends with error, and its code_finished event is stored`, async () => {
        const id = await createThread();
        const { out, finished } = await inThread(id, async (instance: any) => {
          const state = await codeState(instance, "call_review_error_size");
          const before = instance.store.events.lastSeq();
          const out = await state.runCode(source, { sandbox, report: true, timeoutMs: 20_000 }).result;
          const finished = (instance.store.events.since(before) as Array<{ type: string; data: any }>).filter((e) => e.type === "code_finished");
          return { out: { status: out.status, error: out.error ?? "" }, finished };
        });
        expect(out.status).toBe("error");
        expect(JSON.stringify(out.error).length, "the run's error as JSON").toBeLessThanOrEqual(MAX_EVENT_BYTES);
        expect(finished).toHaveLength(1);
        expect(finished[0]!.data).toMatchObject({ status: "error" });
        expect(finished[0]!.data.error.startsWith(out.error.slice(0, 100))).toBe(true);
      }, 60_000);
    }
  });
}
