/**
 * Review (secrets x error texts): redaction replaces whole occurrences of a secret only, so a text
 * cut before it is redacted may keep a secret's first characters. A thrown error's stack is kept
 * with its call record cut to 16 KiB, and the cut was made on the stack as thrown, before the
 * record was redacted. A stack starts with the error's message; when the message holds a secret
 * after text the caller chose (an input the tool quotes), the caller moves the cut along the
 * secret and reads it from `GET /threads/:id/calls`, one character more each call.
 */
import { describe, expect, it } from "vitest";
import { createThread, json } from "../helpers.js";

const CANARY = "canary-worker-9b2d6e7a15"; // test/wrangler.toml's CANARY_WORKER
const STACK_BYTES = 16 * 1024; // MAX_STACK_BYTES in src/calls/result.ts

describe("a thrown error's stack", () => {
  it("keeps no part of a secret its message holds across the cut", async () => {
    const id = await createThread();
    const head = "Error: ".length;
    for (const k of [8, 16, CANARY.length - 1]) {
      const before = "x".repeat(STACK_BYTES - head - k);
      const res = await json("POST", "/v1/tools/returns_bare", { sessionId: id, input: { kind: "throw", before, env: "CANARY_WORKER" } });
      expect(res.status).toBe(200);
    }
    const { body } = await json<{ calls: Array<{ result?: { stack?: string; error?: string } }> }>("GET", `/threads/${id}/calls`);
    expect(body.calls).toHaveLength(3);
    for (const call of body.calls) {
      const tail = /x*([^x]*)$/.exec(call.result?.stack ?? "")?.[1] ?? "";
      expect(tail, "the stack's cut kept the secret's first characters").not.toContain(CANARY.slice(0, 6));
    }
  });
});
