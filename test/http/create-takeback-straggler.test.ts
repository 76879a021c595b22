/**
 * A create of a deleted thread's lifetime that the deletion cut and left running does not count as a
 * create of the next lifetime: a failed create there still takes its listing back and its rows with
 * it (found by a hostile review: the listing named no thread, DELETE answered 404).
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { inThread, isListed, json, keyed, until } from "../helpers.js";

const g = globalThis as unknown as { __hold?: Record<string, { waiting: number; release?: () => void }> };

it("a create refused while a deleted thread's create still runs takes its listing and rows back", async () => {
  const token = `tb-straggler:${crypto.randomUUID()}`;
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  const id = ns.idFromName(`ct:${JSON.stringify(["tester", token])}`).toString();
  // Holds the first lookup of the needs_key agent's variable only (create A), until the test releases it.
  await inThread(id, (t) => {
    const hold: { waiting: number; release?: () => void } = ((g.__hold ??= {})[token] = { waiting: 0 });
    const get = t.userEnv.get.bind(t.userEnv);
    t.userEnv.get = async (userId: string, name: string) => {
      if (name === "WEFT_FIXTURE_PAYMENT_KEY" && hold.waiting === 0) {
        hold.waiting++;
        await new Promise<void>((r) => (hold.release = r));
      }
      return get(userId, name);
    };
  });
  const a = json("POST", "/threads", { agent: "needs_key", continuationToken: token });
  await until(() => inThread(id, () => g.__hold![token]!.waiting === 1), "A to wait");
  // B makes the thread on the token; its owner deletes it: the deletion cuts A (still held) after its grace.
  expect((await json("POST", "/threads", { agent: "guarantees", continuationToken: token })).status).toBe(201);
  expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
  expect(await isListed(id)).toBe(false);
  // C, later, on the same token under a key: refused (the user lacks the variable). A still runs, so C is not "the last out".
  const key = `tb-straggler-${crypto.randomUUID()}`;
  const c = await keyed("POST", "/threads", key, { agent: "needs_key", continuationToken: token });
  expect([c.status, c.body.error?.code]).toEqual([400, "missing_variables"]);
  // A ends (cut): a removal ran in its lifetime, so it takes nothing back either.
  await inThread(id, () => g.__hold![token]!.release!());
  expect((await a).status).toBeGreaterThanOrEqual(400);
  const state = { info: (await json("GET", `/threads/${id}`)).status, listed: await isListed(id), tables: await inThread(id, (t) => (t.ctx.storage.sql as SqlStorage).exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").one().n) };
  const del = (await json("DELETE", `/threads/${id}`)).status;
  // No thread: no listing (the slot free; on 56d39b4^ the Worker took it back after C's refusal).
  expect({ info: state.info, listed: state.listed, del }).toEqual({ info: 404, listed: false, del: 404 });
  // And no rows: a fixed retry under C's key would replay the kept 400 (pre-existing: the keyed cleanup was skipped before too).
  expect(state.tables).toBe(0);
}, 60_000);
