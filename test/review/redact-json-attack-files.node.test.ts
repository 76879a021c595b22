/**
 * A thread's text file is redacted as text first (so JSON stays JSON), then in its bytes: a secret's
 * bytes (its UTF-8 read as Latin-1) that overlap another secret's text were cut by the text pass,
 * and the bytes pass then found no whole occurrence: part of the first secret was left beside the marker.
 */
import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "../../src/secrets/redact.js";
import { storedFile } from "../../src/secrets/served-file.js";

const info = (path: string) => ({ path, mimeType: "text/plain", size: 0, createdAt: 0 });

describe("a text file holding two secrets' occurrences that overlap, one as bytes", () => {
  const r = new Redactor([
    { name: "A", value: "secret-value" },
    { name: "B", value: "\u00e9-secret" },
  ]);
  // "é-secret" in UTF-8, read as Latin-1: "Ã©-secret"; it overlaps "secret-value".
  const bytesOfB = "\u00c3\u00a9-secret";

  it("is one stretch, one marker", () => {
    expect(storedFile(info("notes/a.txt"), `x ${bytesOfB}-value y`, r).data).toBe(`x ${REDACTED} y`);
    expect(storedFile(info("notes/a.txt"), `x ${bytesOfB} y`, r).data).toBe(`x ${REDACTED} y`);
  });

  it("in a JSON file, which stays JSON", () => {
    const stored = storedFile(info("notes/a.json"), `{"a":"${bytesOfB}-value","n":12345678901234567890}`, r).data;
    expect(stored).toBe(`{"a":"${REDACTED}","n":12345678901234567890}`);
    // Written with escapes, a reader decodes the same bytes.
    const escaped = storedFile(info("notes/b.json"), '{"a":"\\u00c3\\u00a9-secret-value"}', r).data;
    expect(JSON.parse(escaped)).toEqual({ a: REDACTED });
  });
});
