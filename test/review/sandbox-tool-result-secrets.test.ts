/**
 * Review (secrets x sandbox): a tool's result is cleaned of the thread's secrets before the model
 * or anyone else sees it (docs/env-and-secrets.md "Secrets and redaction": stored messages, events, answers). Code
 * run with `state.runCode` and `imports: { tools: [...] }` is untrusted (a model, so a user, writes
 * it), yet each imported tool answered it the result as the tool returned it, secrets and all: the
 * code could then hand the secret out in any form redaction does not look for (reversed, spaced,
 * base64), in its value, its console lines or a granted fetch. docs/running-code.md promises the
 * code cannot reach the Worker's env or secrets. What an imported tool answers the code must be
 * what a reader of the call gets: redacted.
 */
import { describe, expect, it } from "vitest";
import { createThread, inThread } from "../helpers.js";

const CANARY = "canary-worker-9b2d6e7a15"; // test/wrangler.toml's CANARY_WORKER

for (const sandbox of ["quickjs", "isolate"] as const) {
  describe(`sandbox ${sandbox}`, () => {
    it("a tool imported into the code answers its result with the thread's secrets redacted", async () => {
      // The nested agent offers read_env, a tool whose result holds the env value it read.
      const id = await createThread({ agent: "nested" });
      const out = await inThread(id, async (instance: any) => {
        const { createThreadState } = await import("../../src/run/state.js");
        const state = createThreadState(instance.world, undefined, null);
        // The code reverses what it got: a form the redactor does not look for.
        const source = `import { read_env } from "tools";
          export default async () => String(await read_env({ name: "CANARY_WORKER" })).split("").reverse().join("")`;
        return state.runCode(source, { sandbox, timeoutMs: 20_000, imports: { tools: ["read_env"] } }).result;
      });
      expect(out.status, out.error).toBe("success");
      const seen = String(out.value).split("").reverse().join("");
      expect(seen, "the code read the Worker secret as the tool returned it").not.toContain(CANARY);
      expect(seen).toBe("[redacted]|secret");
    });
  });
}
