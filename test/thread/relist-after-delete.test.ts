/**
 * A create on an id deleted earlier in this instance lists the thread in its owner's account before
 * it is made (under the per-user limit), counted with the create: a DELETE that comes meanwhile
 * finds no thread yet, and one after it unlists it, so the account never keeps an entry naming no thread
 * (found by a hostile review: the delete unlisted first, then the listing landed).
 */
import { expect, it } from "vitest";
import { inThread, isListed, json, until } from "../helpers.js";
import { keyedThread } from "../removal-helpers.js";

const g = globalThis as unknown as { __heldRelist?: Record<string, () => void> };

it("a create on a deleted id lists its thread before making it: a DELETE meanwhile finds none, one after unlists it", async () => {
  const { id, again } = await keyedThread("relist-after-delete");
  const tag = crypto.randomUUID();
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  // The next create's listing (its claim before the thread is made) reaches the account when released.
  await inThread(id, (t) => {
    const listing = t.listing;
    const claim = listing.claimNew.bind(listing);
    listing.claimNew = (...args: Parameters<typeof claim>) => {
      listing.claimNew = claim;
      return new Promise((resolve, reject) => void ((g.__heldRelist ??= {})[tag] = () => void claim(...args).then(resolve, reject)));
    };
  });
  const creating = again();
  await until(() => inThread(id, () => g.__heldRelist?.[tag] !== undefined), "the listing to wait");
  // Before the claim is answered there is no thread to delete yet.
  expect((await json("DELETE", `/threads/${id}`)).status).toBe(404);
  await inThread(id, () => g.__heldRelist![tag]!());
  await creating;
  expect(await isListed(id)).toBe(true);
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
}, 90_000);
