/**
 * A scratch thread's keep as a session whose listing reaches the owner's account after a DELETE
 * removed the thread lists nothing: the keep names the thread's createdAt, and the removal of a
 * scratch thread whose keep began tells the account, keyed or not (found by hostile review 20a).
 */
import { expect, it } from "vitest";
import { inThread, isListed, json, keyed, until } from "../helpers.js";
import { heldListings, holdListing, holdNextKeep, scratchIdOf, untilDeleting } from "../removal-helpers.js";


it("keyed scratch thread: a keep listing delivered after the DELETE's removal lists nothing", async () => {
  const key = `r20a-keep-${crypto.randomUUID()}`;
  const id = scratchIdOf("tester", key);
  await holdListing(id, key, (meta) => meta.ephemeral === false);
  const first = keyed("POST", "/v1/tools/dated", key, { input: { when: "2026-01-01T00:00:00Z" } });
  await until(() => inThread(id, () => heldListings[key] !== undefined), "the keep to wait");
  const deleting = json("DELETE", `/threads/${id}`);
  await untilDeleting(id);
  // The account answers only after the grace: the removal went on and unlisted (id, meta.createdAt).
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  await inThread(id, () => heldListings[key]!());
  await first;
  await new Promise((r) => setTimeout(r, 200));
  expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
}, 90_000);

it("unkeyed scratch thread: a keep listing delivered after the DELETE's removal lists nothing", async () => {
  const held = await holdNextKeep();
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
}, 90_000);
