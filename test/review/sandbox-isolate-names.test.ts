/**
 * Review (sandbox, isolate executor): an isolate's name is a hash of what the run is made of (its
 * code, modules, globals, import names, scope), and to skip hashing on a warm run the executor kept
 * up to 500 names by their whole identity text, the JSON of all of it, in memory shared by every
 * thread of the Worker's isolate. Code is up to 1 MiB, and as JSON a control character takes six:
 * each run of distinct code a user sends (the example's `compute` takes any the model writes) kept
 * megabytes for good, so a few dozen runs passed the 128 MB of the isolate every user's thread on
 * it shares. What is kept to name isolates must stay small whatever the code is.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";
import { codeState } from "../sandbox/code-state.js";

/** What the names may keep: a small part of an isolate's 128 MB, whatever the runs. */
const KEPT_CHARS_BOUND = 8 * 1024 * 1024;

describe("sandbox isolate", () => {
  it("runs of distinct large code keep no more than a few megabytes of identity text for their isolates' names", async () => {
    const id = await createThread();
    const { kept, statuses } = await inThread(id, async (instance: any) => {
      const state = await codeState(instance, "call_review_isolate_names");
      const { keptKeyChars } = await import("../../src/sandbox/isolate.js");
      const statuses: string[] = [];
      // 0.15 MB of code each, 0.9 MB as JSON: a comment of control characters.
      const padding = "\u0001".repeat(150_000);
      for (let i = 0; i < 12; i++) {
        const out = await state.runCode(`// ${i} ${padding}\nexport default () => ${i}`, { sandbox: "isolate", timeoutMs: 20_000 }).result;
        statuses.push(`${out.status}:${String(out.value ?? out.error)}`);
      }
      return { kept: keptKeyChars(), statuses };
    });
    expect(statuses).toEqual(Array.from({ length: 12 }, (_, i) => `success:${i}`));
    expect(kept, `${kept} characters of identity text kept`).toBeLessThanOrEqual(KEPT_CHARS_BOUND);
  }, 120_000);
});
