/**
 * weft's console lines are redacted by the console patch (src/secrets/redact-logs.ts) after
 * `log` wrote them out printable (src/log.ts): a secret whose characters `printable` rewrites
 * no longer matched, in its raw form or its JSON-escaped one. A service account's JSON key, a
 * multi-line secret with quotes, reached the console whole once line feeds were written out as
 * `\n` (a secret with a carriage return did before).
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { log } from "../../src/log.js";
import { Redactor } from "../../src/secrets/redact.js";
import { redactLogs, tapLogs } from "../../src/secrets/redact-logs.js";

const KEY = '{\n  "type": "service_account",\n  "private_key_id": "4f1c9e7a2b"\n}';
const CRLF = "-----BEGIN KEY-----\r\nMIIEvQIBADANBgkq\r\n-----END KEY-----";
const source = { last: () => new Redactor([{ name: "SA_KEY", value: KEY }, { name: "PEM", value: CRLF }]) };

// The console is patched when src/secrets/redact-logs.ts loads: muted before the imports, so the
// patch writes through this mute method (a spy installed after them would replace the patch).
const quiet = vi.hoisted(() => vi.spyOn(console, "error").mockImplementation(() => {}));
afterAll(() => quiet.mockRestore());
redactLogs(source);

/** What `log("error", ...args)` hands the console once the patch redacted it. */
function logged(...args: unknown[]): string {
  const lines: string[] = [];
  const untap = tapLogs((_level, out) => lines.push(out.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(" ")));
  try {
    log("error", ...args);
  } finally {
    untap();
  }
  return lines.join("\n");
}

describe("a weft console line holding a multi-line secret", () => {
  it("shows the marker, not the secret written out printable", () => {
    const line = logged(`weft: turn t1 of thread th1 failed: hook "before_create_message" threw: bad key ${KEY}`);
    expect(line).toContain("[redacted]");
    expect(line).not.toContain("4f1c9e7a2b");
  });

  it("shows the marker for a secret with carriage returns, in text and in an Error", () => {
    const line = logged(`weft: x ${CRLF}`, new Error(`bad ${CRLF}`));
    expect(line).not.toContain("MIIEvQIBADANBgkq");
  });
});
