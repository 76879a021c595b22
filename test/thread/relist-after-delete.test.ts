/**
 * A create on an id deleted earlier in this instance lists the thread in its owner's account again
 * once made. That listing is counted with the create: a DELETE of the new thread that comes
 * meanwhile waits for it and unlists after, so the account never keeps an entry naming no thread
 * (found by a hostile review: the delete unlisted first, then the listing landed).
 */
import { expect, it } from "vitest";
import { inThread, isListed, json, until } from "../helpers.js";
import { keyedThread, untilDeleting } from "../removal-helpers.js";

const g = globalThis as unknown as { __heldRelist?: Record<string, () => void> };

it("a DELETE that comes while a re-made thread is listed again unlists it after", async () => {
  const { id, again } = await keyedThread("relist-after-delete");
  const tag = crypto.randomUUID();
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  // The next create's listing again (mustKeep) reaches the account when released.
  await inThread(id, (t) => {
    const listing = t.listing;
    const list = listing.listInAccount.bind(listing);
    listing.listInAccount = (...args: Parameters<typeof list>) => {
      if (args[2] !== true) return list(...args);
      listing.listInAccount = list;
      return new Promise((resolve, reject) => void ((g.__heldRelist ??= {})[tag] = () => void list(...args).then(resolve, reject)));
    };
  });
  const creating = again().catch((e: unknown) => e);
  await until(() => inThread(id, () => g.__heldRelist?.[tag] !== undefined), "the listing to wait");
  const deleting = json("DELETE", `/threads/${id}`);
  await untilDeleting(id);
  await inThread(id, () => g.__heldRelist![tag]!());
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  await creating;
  expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
}, 90_000);
