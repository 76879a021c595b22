/**
 * weft/client reads a thread's files: `listFiles` a page by path with its cursor, `files()` every
 * page, `getFile` one file's bytes and content type (a path with characters a URL escapes too).
 */
import { expect, it } from "vitest";
import { WeftClientError } from "../../src/client/index.js";
import { createThread, inThread, testClient } from "../helpers.js";

it("lists every file a page at a time and fetches one's bytes with its type", async () => {
  const id = await createThread();
  const paths = ["calls/a%20b/attachments/0-report.txt", "calls/c1/attachments/1-chart.png", "calls/c2/result.txt"];
  await inThread(id, (o) => {
    o.store.files.write(paths[0], btoa("the report"), "text/plain", 10);
    o.store.files.write(paths[1], btoa("\u0089PNG"), "image/png", 4);
    o.store.files.write(paths[2], "a long result", "text/plain", 13);
  });
  const weft = testClient();
  const first = await weft.listFiles(id, { limit: 2 });
  expect(first.files.map((f) => f.path)).toEqual(paths.slice(0, 2));
  expect(first.nextCursor).toBe(paths[1]);
  const all: string[] = [];
  for await (const f of weft.files(id, { pageSize: 1 })) all.push(f.path);
  expect(all).toEqual(paths);
  const report = await weft.getFile(id, paths[0]!);
  expect(new TextDecoder().decode(report.bytes)).toBe("the report");
  expect(report.contentType).toMatch(/^text\/plain/);
  const chart = await weft.getFile(id, paths[1]!);
  expect([...chart.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  expect(chart.contentType).toBe("image/png");
  const missing = await weft.getFile(id, "calls/none/result.txt").catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(WeftClientError);
  expect((missing as WeftClientError).status).toBe(404);
});
