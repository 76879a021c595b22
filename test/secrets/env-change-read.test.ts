/**
 * A value the owner makes secret is in force in their threads when the write answers, for reads too
 * (review 21c): the account's notice only marked the thread's kept values stale, and only a request
 * that may run code read them again, so a read right after the 200 (the calls, a file) answered
 * with the old redactor; and a file written before listed its size as written, telling the length
 * of the secret its served content hides.
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

it("a file written before a value became secret is listed with the size it is served at (review 21c)", async () => {
  const user = await freshUser("secret-size");
  const value = `late-secret-${crypto.randomUUID()}`;
  expect((await send(user.token, "PUT", "/account/env/OTHER", { value: "other-value-123", type: "text" })).status).toBe(200);
  const id = (await send(user.token, "POST", "/threads", {})).body.threadId as string;
  expect((await send(user.token, "POST", "/v1/tools/read_env", { sessionId: id, input: { name: "OTHER" } })).status).toBe(200);
  const text = `before ${value} after\n`;
  const bytes = [...text].map((ch) => String.fromCharCode(ch.charCodeAt(0) & 0xff, 0)).join("");
  const files = { "calls/c1/result.txt": text, "calls/c2/attachments/0-wide.txt": btoa(bytes) };
  await inThread(id, (o) => {
    o.store.files.write("calls/c1/result.txt", text, "text/plain; charset=utf-8", text.length);
    o.store.files.write("calls/c2/attachments/0-wide.txt", files["calls/c2/attachments/0-wide.txt"], "text/plain; charset=utf-16le", bytes.length);
  });
  expect((await send(user.token, "PUT", "/account/env/LATE", { value, type: "secret" })).status).toBe(200);
  const listed = (await send(user.token, "GET", `/threads/${id}/files`)).body.files as Array<{ path: string; size: number }>;
  for (const path of Object.keys(files)) {
    const served = new Uint8Array(await (await request(`/threads/${id}/files/${path}`, { headers: { authorization: `Bearer ${user.token}` } }, null)).arrayBuffer());
    expect([path, listed.find((f) => f.path === path)?.size]).toEqual([path, served.byteLength]);
    expect(String.fromCharCode(...served).replace(/\0/g, "")).not.toContain(value);
  }
  // Stored so too: the secret is no longer at rest.
  await inThread(id, (o) => {
    expect(o.store.files.read("calls/c1/result.txt")).not.toContain(value);
  });
});
