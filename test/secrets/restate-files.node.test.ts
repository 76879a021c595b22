/**
 * A thread's files are brought up to new secrets a part at a time (review 21e): one read after a
 * change of secrets stored every file again in one request, with no bound on the files' total, so a
 * thread with enough of them could never finish it within a request's CPU, and no list or fetch
 * would answer again. Each request now does at most a budget, keeps where it stopped, and answers
 * `session_busy`; the next one goes on, and the sizes listed at the end are those served.
 */
import { describe, expect, it } from "vitest";
import { MemoryTables } from "../../src/memory/store.js";
import { Redactor } from "../../src/secrets/redact.js";
import { listedFiles, servedFileAt } from "../../src/secrets/served-file.js";

const SECRET = "sk-live-0123456789abcdef";

function tables(n: number): MemoryTables {
  const t = new MemoryTables();
  for (let i = 0; i < n; i++) t.files.write(`calls/c${String(i).padStart(2, "0")}/result.txt`, `file ${i}: ${SECRET} ${"x".repeat(100)}`, "text/plain", 0);
  return t;
}

describe("bringing files up to new secrets", () => {
  it("goes a budget at a time, answering session_busy until done, and lists each file as served", () => {
    const t = tables(10);
    const r = new Redactor([{ name: "S", value: SECRET }]);
    let busy = 0;
    for (;;) {
      try {
        const { files } = listedFiles(t.files, r, {}, 300);
        expect(files.map((f) => f.size)).toEqual(files.map((f) => new TextEncoder().encode(servedFileAt(t.files, f.path, r, 300)!.data).byteLength));
        break;
      } catch (e) {
        expect((e as { code?: string }).code).toBe("session_busy");
        busy++;
        expect(busy).toBeLessThan(10);
      }
    }
    // About 140 units a file, 300 a request: three files a request, so four requests in all.
    expect(busy).toBe(3);
    for (const f of t.files.list()) expect(t.files.read(f.path)).not.toContain(SECRET);
  });

  it("starts over for a newer set of secrets, and does nothing more once done", () => {
    const t = tables(4);
    const first = new Redactor([{ name: "S", value: SECRET }]);
    expect(() => listedFiles(t.files, first, {}, 150)).toThrow(/a part at a time/);
    const second = new Redactor([{ name: "S", value: SECRET }, { name: "T", value: "file 3: " }]);
    let tries = 0;
    while (tries < 10) {
      tries++;
      try {
        listedFiles(t.files, second, {}, 150);
        break;
      } catch {
        // A part done; the next request goes on.
      }
    }
    expect(t.files.read("calls/c03/result.txt")).toMatch(/^\[redacted\]\[redacted\]/);
    expect(t.files.redactedFor()).toBe(second.fingerprint);
    const written = [...t.files.list()].map((f) => f.createdAt);
    expect(listedFiles(t.files, second, {}, 1).files.map((f) => f.createdAt)).toEqual(written);
  });
});
