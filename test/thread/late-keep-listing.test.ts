/**
 * A scratch thread's keep as a session whose listing reaches the owner's account after a DELETE
 * removed the thread lists nothing: the keep names the thread's createdAt, and the removal of a
 * scratch thread whose keep began tells the account, keyed or not (found by hostile review 20a).
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { inThread, isListed, json, keyed, until } from "../helpers.js";
import { untilDeleting } from "../removal-helpers.js";

const g = globalThis as unknown as { __heldListing20a?: Record<string, () => void> };

function scratchIdOf(userId: string, key: string): string {
  const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
  return ns.idFromName(`idem:${JSON.stringify(["call", userId, key])}`).toString();
}

function holdListing(id: string, tag: string, which: (meta: { ephemeral?: boolean }) => boolean): Promise<void> {
  return inThread(id, (t) => {
    const listing = t.listing;
    const list = listing.listInAccount.bind(listing);
    listing.listInAccount = (...args: Parameters<typeof list>) => {
      if (!which(args[0] as { ephemeral?: boolean })) return list(...args);
      listing.listInAccount = list;
      return new Promise((resolve, reject) => void ((g.__heldListing20a ??= {})[tag] = () => void list(...args).then(resolve, reject)));
    };
  });
}

it("keyed scratch thread: a keep listing delivered after the DELETE's removal lists nothing", async () => {
  const key = `r20a-keep-${crypto.randomUUID()}`;
  const id = scratchIdOf("tester", key);
  await holdListing(id, key, (meta) => meta.ephemeral === false);
  const first = keyed("POST", "/v1/tools/dated", key, { input: { when: "2026-01-01T00:00:00Z" } });
  await until(() => inThread(id, () => g.__heldListing20a?.[key] !== undefined), "the keep to wait");
  const deleting = json("DELETE", `/threads/${id}`);
  await untilDeleting(id);
  // The account answers only after the grace: the removal went on and unlisted (id, meta.createdAt).
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  await inThread(id, () => g.__heldListing20a![key]!());
  await first;
  await new Promise((r) => setTimeout(r, 200));
  expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
}, 90_000);

it("unkeyed scratch thread: a keep listing delivered after the DELETE's removal lists nothing", async () => {
  const helper = (await json("POST", "/threads", { agent: "guarantees" })).body.threadId as string;
  const held: { id?: string; release?: () => void } = {};
  (globalThis as unknown as { __keepHeld20a?: typeof held }).__keepHeld20a = held;
  await inThread(helper, (t) => {
    const proto = Object.getPrototypeOf(t.listing);
    const list = proto.listInAccount;
    const h = (globalThis as unknown as { __keepHeld20a: typeof held }).__keepHeld20a;
    proto.listInAccount = function (this: { parts: { threadId: string } }, ...args: unknown[]) {
      if ((args[0] as { ephemeral?: boolean }).ephemeral !== false || this.parts.threadId === helper) return list.apply(this, args);
      proto.listInAccount = list;
      h.id = this.parts.threadId;
      return new Promise((resolve, reject) => void (h.release = () => void list.apply(this, args).then(resolve, reject)));
    };
  });
  const first = json("POST", "/v1/tools/dated", { input: { when: "2026-01-01T00:00:00Z" } });
  await until(async () => held.release !== undefined, "the keep to wait");
  const id = held.id!;
  const deleting = json("DELETE", `/threads/${id}`);
  await untilDeleting(id);
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  await inThread(id, () => held.release!());
  await first;
  await new Promise((r) => setTimeout(r, 200));
  expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
  await json("DELETE", `/threads/${helper}`);
}, 90_000);
