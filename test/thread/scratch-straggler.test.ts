/**
 * A keyed direct call without a session runs in a scratch thread whose id comes from its key, so a
 * retry of the key after a DELETE makes that thread again on the same id. Work of the deleted one
 * still waiting for the owner's account must act on nothing of the new one (found by a hostile
 * review: it removed the new thread, so the tool ran twice under one key, and it overwrote the new
 * thread's record with its own).
 */
import { expect, it } from "vitest";
import { inThread, isListed, json, keyed, ledgerOf, until } from "../helpers.js";
import { heldListings, holdListing, keepHeldAcrossDelete, scratchIdOf } from "../removal-helpers.js";


it("a deleted scratch thread's count answering late leaves the one made again on the id, whose call ran once", async () => {
  const key = `scratch-count-${crypto.randomUUID()}`;
  const id = scratchIdOf("tester", key);
  await holdListing(id, key, () => true);
  const body = { input: { label: "scratch" } };
  const first = keyed("POST", "/v1/tools/effect_write", key, body);
  await until(() => inThread(id, () => heldListings[key] !== undefined), "the count to wait");
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  const second = await keyed("POST", "/v1/tools/effect_write", key, body);
  expect(second.status).toBe(200);
  const effectKey = JSON.parse(second.body.result).effectKey as string;
  await inThread(id, () => heldListings[key]!());
  expect((await first).status).toBe(404);
  const repeat = await keyed("POST", "/v1/tools/effect_write", key, body);
  expect({ repeat: repeat.status, sameCall: repeat.body.callId === second.body.callId, runs: (await ledgerOf(effectKey)).runs }).toEqual({ repeat: 200, sameCall: true, runs: 1 });
}, 90_000);

it("a DELETE waits for a keyed scratch call being kept as a session, and unlists it after", async () => {
  const key = `scratch-keep-${crypto.randomUUID()}`;
  const { id, first, deleting, release } = await keepHeldAcrossDelete(key);
  // The account answers within the delete's grace: the keep ends as usual (the call waits for approval), and the delete unlists after.
  await release();
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  expect((await first).status).toBe(202);
  expect(await isListed(id)).toBe(false);
  // Made again by the key: its record is its own.
  const again = await keyed("POST", "/v1/tools/effect_write", key, { input: { label: "again" } });
  expect([again.status, again.body.scratchWorkspace]).toEqual([200, true]);
  const stored = await inThread(id, (t) => ({ memory: t.world!.meta, stored: t.store.meta.read() }));
  expect(stored.stored).toEqual(stored.memory);
  expect(await isListed(id)).toBe(false);
}, 90_000);

it("a DELETE during an unkeyed scratch call's keep unlists what the keep listed", async () => {
  const { id, first, deleting, release } = await keepHeldAcrossDelete();
  // The account answers within the grace: the keep ends as usual (the call waits for approval), then the delete unlists.
  await release();
  expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
  expect((await first).status).toBe(202);
  expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
}, 90_000);
