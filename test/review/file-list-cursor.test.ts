/**
 * Review (file pages): `GET /threads/:id/files` paged by `?offset=` over files ordered by path. Files
 * come and go anywhere in that order (a turn keeps a result under its call's path, the owner deletes
 * files), so a client that deleted the files of one page, or listed while a turn ran, had files
 * skipped or shown twice by the next page; and a page at offset N read the N rows before it. A page
 * now goes on after the previous page's last path (`nextCursor`), whatever changed before it.
 */
import { expect, it } from "vitest";
import { createThread, inThread, json } from "../helpers.js";

const path = (i: number) => `calls/c${String(i).padStart(2, "0")}/result.txt`;

it("the next page starts after the last file listed, though files before it were deleted or added", async () => {
  const id = await createThread();
  await inThread(id, (instance) => {
    for (let i = 0; i < 30; i++) instance.store.files.write(path(i), "x", "text/plain", 1, 1);
  });
  const first = await json("GET", `/threads/${id}/files?limit=10`);
  expect(first.status).toBe(200);
  expect(first.body.files.map((f: { path: string }) => f.path)).toEqual(Array.from({ length: 10 }, (_, i) => path(i)));
  expect(first.body.nextCursor).toBe(path(9));
  // The client deletes half of what it read; a turn keeps a file whose path sorts first.
  for (let i = 0; i < 5; i++) expect((await json("DELETE", `/threads/${id}/files/${path(i)}`)).status).toBe(200);
  await inThread(id, (instance) => instance.store.files.write("calls/b-new/result.txt", "y", "text/plain", 1, 2));
  const second = await json("GET", `/threads/${id}/files?limit=10&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  expect(second.status).toBe(200);
  expect(second.body.files.map((f: { path: string }) => f.path)).toEqual(Array.from({ length: 10 }, (_, i) => path(10 + i)));
  const last = await json("GET", `/threads/${id}/files?limit=10&cursor=${encodeURIComponent(second.body.nextCursor)}`);
  expect(last.body.files.map((f: { path: string }) => f.path)).toEqual(Array.from({ length: 10 }, (_, i) => path(20 + i)));
  expect(last.body.nextCursor).toBeNull();
});
