/**
 * Review (files x secrets): when a thread's secrets change, its files are brought up to them a
 * budget at a time, so that "no request's CPU grows with the thread's files" (served-file.ts). Yet
 * each such request first read every file's metadata into one array, however few it then did, and
 * counted a file only by its data's length, so files with no data cost nothing and a thread of many
 * went through every one in a single request. A thread's files have no bound (17 a call, calls
 * unbounded). One request now reads a batch at a time from where the last stopped, and at most a
 * bounded number of files.
 */
import { expect, it } from "vitest";
import { Redactor } from "../../src/secrets/redact.js";
import { listedFiles } from "../../src/secrets/served-file.js";
import { createThread, inThread, rowsReadBy } from "../helpers.js";

const FILES = 12_000;

/** A thread holding {@link FILES} files, each of `data`, written straight into its store. */
async function manyFiles(data: string): Promise<string> {
  const id = await createThread();
  await inThread(id, (instance) => {
    instance.ctx.storage.transactionSync(() => {
      for (let i = 0; i < FILES; i++) instance.store.files.write(`calls/c${String(i).padStart(5, "0")}/result.txt`, data, "text/plain", data.length, 1);
    });
  });
  return id;
}

/** Rows one listing reads while the files are brought up to a new set of secrets, and whether it answered session_busy. */
function oneListing(instance: any, budget: number): { read: number; busy: boolean } {
  const fresh = new Redactor([{ name: "S", value: `sk-${crypto.randomUUID()}` }]);
  let busy = false;
  const read = rowsReadBy(instance.ctx.storage.sql as SqlStorage, () => {
    try {
      listedFiles(instance.store.files, fresh, { limit: 1 }, budget);
    } catch (e) {
      expect((e as { code?: string }).code).toBe("session_busy");
      busy = true;
    }
  });
  return { read, busy };
}

it("a request that brings a few files up to new secrets reads those files, not every file's row", async () => {
  const id = await manyFiles("x".repeat(100));
  // About ten files' worth of budget: the request does those and stops.
  const { read, busy } = await inThread(id, (instance) => oneListing(instance, 1000));
  expect(busy).toBe(true);
  expect(read, "rows read by one request that did ten files").toBeLessThan(2000);
});

it("files without data still count: one request does not go through all of them", async () => {
  const id = await manyFiles("");
  const { read, busy } = await inThread(id, (instance) => oneListing(instance, 1_000_000));
  expect(busy, "every empty file was done in one request").toBe(true);
  expect(read).toBeLessThan(3 * FILES);
});
