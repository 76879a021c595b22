/**
 * Rotating a secret in the account (a new value, or the value deleted) must not show the old one
 * again: call records keep a call's input as the tool got it, and are redacted as they leave, so
 * the old value would come back once it stopped being a secret.
 */
import { expect, it } from "vitest";
import { stubOf } from "../helpers.js";
import { freshUser, send } from "../usage/users.js";

it("an account secret replaced or deleted stays redacted from the threads that held it", async () => {
  const user = await freshUser("rotated-secret");
  const old = `old-key-${crypto.randomUUID().slice(0, 12)}`;
  const rotated = `new-key-${crypto.randomUUID().slice(0, 12)}`;
  expect((await send(user.token, "PUT", "/account/env/PARTNER_KEY", { value: old })).status).toBe(200);
  const id = (await send(user.token, "POST", "/threads", {})).body.threadId as string;
  // The model wrote the key into a call: the record keeps it as the tool got it.
  const script = [{ toolCalls: [{ id: "c1", name: "person", arguments: { name: old, age: 1 } }] }, { text: "done" }];
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
  await stubOf(id).waitIdle();
  const shows = async (value: string) => JSON.stringify((await send(user.token, "GET", `/threads/${id}/calls`)).body).includes(value);
  expect(await shows(old)).toBe(false);

  expect((await send(user.token, "PUT", "/account/env/PARTNER_KEY", { value: rotated })).status).toBe(200);
  expect(await shows(old)).toBe(false);
  // A tool that hands the old value out again after the rotation is cleaned of it too.
  const again = await send(user.token, "POST", "/v1/tools/person", { sessionId: id, input: { name: old, age: 2 } });
  expect(JSON.stringify(again.body).includes(old)).toBe(false);

  expect((await send(user.token, "DELETE", "/account/env/PARTNER_KEY")).status).toBe(200);
  expect([await shows(old), await shows(rotated)]).toEqual([false, false]);
  // The owner may still make a value visible on purpose: the same value set as text is shown.
  const plain = `plain-${crypto.randomUUID().slice(0, 12)}`;
  expect((await send(user.token, "PUT", "/account/env/SHOWN", { value: plain })).status).toBe(200);
  expect((await send(user.token, "PUT", "/account/env/SHOWN", { value: plain, type: "text" })).status).toBe(200);
  const shown = await send(user.token, "POST", "/v1/tools/person", { sessionId: id, input: { name: plain, age: 3 } });
  expect(JSON.stringify(shown.body).includes(plain)).toBe(true);
});
