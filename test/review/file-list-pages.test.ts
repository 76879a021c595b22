/**
 * `GET /threads/:id/files` answered every file of a thread at once (hostile review). Nothing bounds
 * a thread's files: each call may keep its capped result and up to 16 attachments, a thread's calls
 * are unbounded, and an attachment's name (part of its path) is the tool's to make long. So the list
 * grew past any RPC answer and any isolate's memory. It is now a page, by path, read row by row.
 */
import { expect, it } from "vitest";
import { PAGE_BYTES } from "../../src/limits.js";
import { listedFiles } from "../../src/secrets/served-file.js";
import { createThread, inThread, json, rowsReadBy } from "../helpers.js";

const FILES = 1500;
/** About 3 KB of path a file: 1500 of them list as 4.5 MB of JSON, over a page's 4 MiB. */
const NAME = "n".repeat(3000);

/** A thread holding {@link FILES} files, written straight into its store. */
async function manyFiles(): Promise<string> {
  const id = await createThread();
  await inThread(id, (instance) => {
    for (let i = 0; i < FILES; i++) instance.store.files.write(`calls/c${String(i).padStart(4, "0")}/attachments/0-${NAME}`, btoa("x"), "text/plain", 1, 1);
  });
  return id;
}

it("a thread's files list a page at a time, within 4 MiB, and paging by cursor reads each file once", async () => {
  const id = await manyFiles();
  const first = await json("GET", `/threads/${id}/files`);
  expect(first.status).toBe(200);
  expect(first.body.nextCursor).toBe(first.body.files.at(-1).path);
  expect(first.body.files.length).toBeLessThan(FILES);
  expect(new TextEncoder().encode(JSON.stringify(first.body.files)).byteLength).toBeLessThanOrEqual(PAGE_BYTES);
  const paths: string[] = [];
  for (let cursor: string | null = null; ; ) {
    const page: { status: number; body: any } = await json("GET", `/threads/${id}/files?limit=400${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(page.status).toBe(200);
    expect(page.body.files.length).toBeLessThanOrEqual(400);
    paths.push(...page.body.files.map((f: { path: string }) => f.path));
    cursor = page.body.nextCursor;
    if (cursor === null) break;
  }
  expect(paths.length).toBe(FILES);
  expect(new Set(paths).size).toBe(FILES);
  expect(paths).toEqual([...paths].sort());
});

it("a page of files reads only its own rows, the first or one far on", async () => {
  const id = await manyFiles();
  expect((await json("GET", `/threads/${id}/files?limit=1`)).status).toBe(200);
  for (const cursor of [undefined, `calls/c1400/attachments/0-${NAME}`]) {
    const read = await inThread(id, (instance) => rowsReadBy(instance.ctx.storage.sql as SqlStorage, () => listedFiles(instance.store.files, instance.secrets.redactor(), { limit: 10, ...(cursor ? { cursor } : {}) })));
    // The page's 10 rows, the one that says more follow, and the mark of the files' redaction.
    expect(read, cursor).toBeLessThanOrEqual(10 + 3);
  }
});

it("a bad limit or cursor is refused with invalid_request naming it", async () => {
  const id = await createThread();
  for (const [q, name] of [["limit=0", "limit"], ["limit=1001", "limit"], ["limit=x", "limit"], ["cursor=", "cursor"], ["cursor=a&cursor=b", "cursor"]] as const) {
    const res = await json("GET", `/threads/${id}/files?${q}`);
    expect(res.status, q).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.details.path).toEqual([name]);
  }
  expect((await json("GET", `/threads/${id}/files?limit=1000&cursor=calls`)).body).toEqual({ files: [], nextCursor: null });
});
