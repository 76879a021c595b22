/**
 * Review (secrets x error texts): redaction replaces whole occurrences of a secret only, so any text
 * weft cuts before it is redacted may keep a secret's first characters. A tool that returns a bare
 * string (plain JavaScript can) ends as an error result quoting that string's first 200
 * characters, cut before the result is redacted: a secret the string holds across the 200th
 * character was shown up to the cut. When the caller controls what comes before the secret (a
 * tool input the string echoes), moving the cut one character at a time reads the secret whole.
 */
import { describe, expect, it } from "vitest";
import { json } from "../helpers.js";

const CANARY = "canary-worker-9b2d6e7a15"; // test/wrangler.toml's CANARY_WORKER

describe("a bare string's quote", () => {
  it("shows no part of a secret the string holds across the cut", async () => {
    let read = "";
    for (let k = 1; k < CANARY.length; k++) {
      const res = await json<{ error: string }>("POST", "/v1/tools/returns_bare", { input: { kind: "string", before: "x".repeat(200 - k), env: "CANARY_WORKER" } });
      expect(res.status).toBe(200);
      const quoted = /bare string \("x*([^"]*)"/.exec(res.body.error)?.[1] ?? "";
      if (quoted.length > read.length) read = quoted;
    }
    expect(read, "the secret's characters were read through the cut").not.toContain(CANARY.slice(0, 6));
  });

  it("still names the problem", async () => {
    const res = await json<{ error: string }>("POST", "/v1/tools/returns_bare", { input: { kind: "string" } });
    expect(res.body.error).toBe('tool returned a bare string ("Order 42 found"); expected a ToolResult { status: "success" | "error", result?, error? }');
  });
});
