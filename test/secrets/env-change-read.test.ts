/**
 * A value the owner makes secret is in force in their threads when the write answers, for reads too
 * (review 21c): the account's notice only marked the thread's kept values stale, and only a request
 * that may run code read them again, so a read right after the 200 (the calls, a file) answered
 * with the old redactor.
 */
import { expect, it } from "vitest";
import { inThread, request } from "../helpers.js";
import { freshUser, send } from "../usage/users.js";

it("a value made secret is redacted from the thread's calls and files as soon as the write answered", async () => {
  const user = await freshUser("secret-on-read");
  const value = `was-text-${crypto.randomUUID().slice(0, 12)}`;
  expect((await send(user.token, "PUT", "/account/env/TOKEN", { value, type: "text" })).status).toBe(200);
  const id = (await send(user.token, "POST", "/threads", {})).body.threadId as string;
  // The thread reads the owner's values: the account tells it of each change from now on.
  expect((await send(user.token, "POST", "/v1/tools/read_env", { sessionId: id, input: { name: "TOKEN" } })).body.result).toBe(`${value}|text`);
  const path = "calls/c1/result.txt";
  await inThread(id, (o) => o.store.files.write(path, `before ${value} after`, "text/plain; charset=utf-8", 0));
  expect((await send(user.token, "PUT", "/account/env/TOKEN", { value, type: "secret" })).status).toBe(200);
  const calls = await send(user.token, "GET", `/threads/${id}/calls`);
  const file = await request(`/threads/${id}/files/${path}`, { headers: { authorization: `Bearer ${user.token}` } }, null);
  expect([calls.status, JSON.stringify(calls.body).includes(value), file.status, (await file.text()).includes(value)]).toEqual([200, false, 200, false]);
});
