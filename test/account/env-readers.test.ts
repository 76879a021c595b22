/**
 * The account's readers, the threads told of every change to the user's values (review 21b): a
 * removed thread stayed one (a direct call's scratch thread too, one more per call, without
 * bound), every change told them all at once with no cap under the subrequest limit, and a reader
 * out of reach was taken as told, so the write answered 200 while a live thread kept the old values.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { freshUser, send } from "../usage/users.js";
import { until } from "../usage/race.js";

type Row = { thread_id: string; told: number };

function account(userId: string): DurableObjectStub {
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  return ns.get(ns.idFromName(userId));
}

const inAccount = <T>(userId: string, fn: (sql: SqlStorage) => T): Promise<T> =>
  (runInDurableObject as unknown as (s: DurableObjectStub, cb: (i: unknown, state: DurableObjectState) => T) => Promise<T>)(account(userId), (_i, state) => fn(state.storage.sql));

const readers = (userId: string) => inAccount(userId, (sql) => sql.exec<Row>("SELECT thread_id, told FROM account_env_readers ORDER BY thread_id").toArray());
const version = (userId: string) => inAccount(userId, (sql) => sql.exec<{ v: number }>("SELECT COALESCE(MAX(version), 0) AS v FROM account_env_version").one().v);

it("a removed thread is no reader any more: direct calls' scratch threads and a deleted session", async () => {
  const user = await freshUser("readers-gone");
  for (let i = 0; i < 5; i++) expect((await send(user.token, "POST", "/v1/tools/person", { input: { name: "Ada", age: 36 } })).status).toBe(200);
  const session = await send(user.token, "POST", "/threads", {});
  expect(session.status).toBe(201);
  expect((await readers(user.userId)).map((r) => r.thread_id)).toContain(session.body.threadId);
  expect((await send(user.token, "DELETE", `/threads/${session.body.threadId}`)).status).toBe(200);
  await until(async () => (await readers(user.userId)).length === 0, "every reader gone");
});

it("a reader out of reach fails the write retryably; the others are told once, and the retry finishes without a new change", async () => {
  const user = await freshUser("readers-reach");
  const live = await send(user.token, "POST", "/threads", {});
  expect(live.status).toBe(201);
  // A reader whose object cannot be reached (an id the namespace refuses).
  await inAccount(user.userId, (sql) => sql.exec("INSERT INTO account_env_readers (thread_id, told) VALUES ('not-an-id', 0)"));
  const put = await send(user.token, "PUT", "/account/env/API_TOKEN", { value: "tok-1234567890", type: "secret" });
  expect([put.status, put.body.error?.code, put.body.error?.details?.threadId]).toEqual([500, "internal_error", "not-an-id"]);
  const after = await version(user.userId);
  expect((await readers(user.userId)).find((r) => r.thread_id === live.body.threadId)?.told).toBe(after);
  await inAccount(user.userId, (sql) => sql.exec("DELETE FROM account_env_readers WHERE thread_id = 'not-an-id'"));
  const retry = await send(user.token, "PUT", "/account/env/API_TOKEN", { value: "tok-1234567890", type: "secret" });
  expect(retry.status).toBe(200);
  // The same value again is no change: nothing new to tell.
  expect(await version(user.userId)).toBe(after);
  // A change tells the live reader, which is current after.
  expect((await send(user.token, "PUT", "/account/env/API_TOKEN", { value: "tok-0987654321", type: "secret" })).status).toBe(200);
  expect((await readers(user.userId)).map((r) => r.told)).toEqual([after + 1]);
});
