/**
 * A result over the cap is measured and stored as a reader gets it (review 21a): whether it is cut,
 * the size its notice gives and the size of its stored file depended on the raw text, so they told
 * the length of the secrets the reader sees replaced.
 */
import { expect, it } from "vitest";
import { capResult, type FileSink } from "../../src/calls/size.js";
import { Redactor } from "../../src/secrets/redact.js";
import { storedFile } from "../../src/secrets/served-file.js";

const SECRET = "sk-live-" + "x".repeat(200);
const r = new Redactor([{ name: "S", value: SECRET }]);

function sink(): FileSink & { files: Array<{ path: string; data: string; size: number }> } {
  const files: Array<{ path: string; data: string; size: number }> = [];
  // As the thread's sink does (src/run/call-world.ts): stored as served, and sized so.
  const writeFile = (path: string, data: string, mimeType: string, size: number) => {
    const stored = storedFile({ path, mimeType, size, createdAt: 0 }, data, r);
    files.push({ path, ...stored });
    return stored.size;
  };
  return { files, writeFile, fileUrl: (p) => `/f/${p}`, redact: (v) => r.value(v) };
}

it("a result that fits once redacted is not cut, whatever the secret's length", () => {
  const s = sink();
  const out = capResult({ status: "success", result: `a ${SECRET} b` }, "c1", 100, s);
  expect([out.fullResultPath, s.files.length]).toEqual([undefined, 0]);
});

it("a cut result's file holds the redacted text, sized as it is, and its notice gives that size", () => {
  const s = sink();
  const text = `${SECRET} ${"y".repeat(300)}`;
  const out = capResult({ status: "success", result: text }, "c2", 100, s);
  const seen = r.text(text);
  expect(s.files).toEqual([{ path: "calls/c2/result.txt", data: seen, size: seen.length }]);
  expect(out.result.result).toContain(`of ${seen.length} bytes`);
});

it("an attachment is stored without the secret's bytes and sized after, its path without the secret", () => {
  const s = sink();
  capResult({ status: "success", result: "ok", attachments: [{ name: `key ${SECRET}.txt`, mimeType: "text/plain", data: btoa(`k=${SECRET}`) }] }, "c3", 100, s);
  expect(s.files).toEqual([{ path: "calls/c3/attachments/0-key__redacted_.txt", data: btoa("k=[redacted]"), size: "k=[redacted]".length }]);
});

it("an attachment's name is recorded redacted, as the result's text is (a Worker secret rotated later is not in the record)", () => {
  const out = capResult({ status: "success", result: "ok", attachments: [{ name: `key-${SECRET}.txt`, mimeType: "text/plain", data: btoa("hi") }] }, "c9", 100, sink());
  expect(out.result.attachments?.[0]?.name).toBe("key-[redacted].txt");
});
