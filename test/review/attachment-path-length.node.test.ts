/**
 * Review (file pages): a page of a thread's files goes on from the previous page's last path, sent
 * back in the URL (`?cursor=`). An attachment's path held its name whole, and the name is the tool's
 * (often the model's) to make as long as it likes: a path past a URL's length (Cloudflare takes 16 KB)
 * could not be sent back, and the list could not go past it. A path keeps the name's last 200
 * characters (its extension with them), after the attachment's index, which keeps paths apart.
 */
import { expect, it } from "vitest";
import { capResult, type FileSink } from "../../src/calls/size.js";

it("an attachment's path is short enough to page on from, however long its name, and paths stay apart", () => {
  const paths: string[] = [];
  const sink: FileSink = { writeFile: (path) => (paths.push(path), 1), fileUrl: (p) => `/f/${p}` };
  const long = `${"n".repeat(100_000)}.pdf`;
  const out = capResult({ status: "success", result: "ok", attachments: [{ name: long, mimeType: "application/pdf", data: btoa("a") }, { name: long, mimeType: "application/pdf", data: btoa("b") }] }, "c1", 100, sink);
  expect(paths.map((p) => p.length)).toEqual([paths[0]!.length, paths[0]!.length]);
  expect(paths[0]!.length).toBeLessThan(300);
  expect(paths[0]).toMatch(/^calls\/c1\/attachments\/0-n+\.pdf$/);
  expect(new Set(paths).size).toBe(2);
  // The name the tool gave is kept as it was, beside the path.
  expect((out.result.attachments as Array<{ name: string }>)[0]!.name).toBe(long);
});
