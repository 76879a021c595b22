/**
 * What a user sends is checked before the account stores it (review 21b): an agent name of 2 MB in
 * a budget, or in a create (claimed in the account before the thread found no such agent), made a
 * row Cloudflare refuses (SQLITE_TOOBIG), answered 500. The test worker holds the account to the
 * row limit (test/worker.ts).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { oversizedWrites } from "../row-limit.js";
import { freshUser, send } from "../usage/users.js";

const BIG = "a".repeat(2_200_000);

it("a budget naming an agent no agent can be is refused with its path, and nothing is stored", async () => {
  const user = await freshUser("budget-row");
  const before = oversizedWrites.length;
  const put = await send(user.token, "PUT", "/account/budgets", { budgets: [{ scope: "agent", agent: BIG, period: "day", tokens: 1000 }] });
  expect([put.status, put.body.error?.code, put.body.error?.details?.path, oversizedWrites.length - before]).toEqual([400, "invalid_request", ["budgets", 0, "agent"], 0]);
  expect((await send(user.token, "GET", "/account/budgets")).body.budgets).toEqual([]);
});

it("a create naming an agent that is not there answers agent_not_found before the account lists anything", async () => {
  const user = await freshUser("agent-row");
  const before = oversizedWrites.length;
  for (const agent of [BIG, "not_deployed"]) {
    const created = await send(user.token, "POST", "/threads", { agent });
    expect([created.status, created.body.error?.code, created.body.error?.details?.path]).toEqual([404, "agent_not_found", ["agent"]]);
  }
  expect(oversizedWrites.length - before).toBe(0);
  expect((await send(user.token, "GET", "/threads")).body.threads).toEqual([]);
});

it("a user's account env values are refused past 8 MiB together, naming the limit (review 21e: every reader takes them whole in one RPC answer)", async () => {
  const user = await freshUser("env-total");
  const value = "v".repeat(1_000_000);
  for (let i = 0; i < 8; i++) expect((await send(user.token, "PUT", `/account/env/BIG_${i}`, { value, type: "text" })).status).toBe(200);
  const over = await send(user.token, "PUT", "/account/env/BIG_8", { value, type: "text" });
  expect([over.status, over.body.error?.code, over.body.error?.details?.path, over.body.error?.details?.limit]).toEqual([413, "payload_too_large", ["value"], 8 * 1024 * 1024]);
  // Replacing one keeps the total: allowed; with one character past U+00FF it travels at two bytes a character: refused.
  expect((await send(user.token, "PUT", "/account/env/BIG_0", { value: "w".repeat(1_000_000), type: "text" })).status).toBe(200);
  expect((await send(user.token, "PUT", "/account/env/BIG_0", { value: `${"w".repeat(999_999)}\u0101`, type: "text" })).status).toBe(413);
});

it("a user's account holds 1000 env values at most, named or empty (review 21f: names and entries were not counted)", async () => {
  const user = await freshUser("env-count");
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  const account = ns.get(ns.idFromName(user.userId));
  await runInDurableObject(account, (_i, state) => {
    for (let i = 0; i < 999; i++) state.storage.sql.exec("INSERT INTO account_env (name, value, type) VALUES (?, '', 'text')", `E_${i}`);
  });
  expect((await send(user.token, "PUT", "/account/env/LAST", { value: "", type: "text" })).status).toBe(200);
  const over = await send(user.token, "PUT", "/account/env/ONE_MORE", { value: "", type: "text" });
  expect([over.status, over.body.error?.details?.path, over.body.error?.details?.limit]).toEqual([413, ["name"], 1000]);
});

it("an account over the limits from before them can still replace a value with one no larger (review 21g)", async () => {
  const user = await freshUser("env-legacy");
  const ns = (env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT;
  await runInDurableObject(ns.get(ns.idFromName(user.userId)), (_i, state) => {
    for (let i = 0; i < 1000; i++) state.storage.sql.exec("INSERT INTO account_env (name, value, type) VALUES (?, ?, 'secret')", `E_${i}`, i < 10 ? "x".repeat(1_000_000) : "");
  });
  expect((await send(user.token, "PUT", "/account/env/E_0", { value: "rotated-key-123", type: "secret" })).status).toBe(200);
  expect((await send(user.token, "PUT", "/account/env/E_500", { value: "", type: "secret" })).status).toBe(200);
  expect((await send(user.token, "PUT", "/account/env/E_500", { value: "longer-now", type: "secret" })).status).toBe(413);
  expect((await send(user.token, "PUT", "/account/env/NEW", { value: "", type: "text" })).status).toBe(413);
});
