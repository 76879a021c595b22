/**
 * A scratch thread's keep as a session whose listing reaches the owner's account after a DELETE
 * removed the thread lists nothing: the keep names the thread's createdAt, and the removal of a
 * scratch thread whose keep began tells the account, keyed or not (found by hostile review 20a).
 */
import { expect, it } from "vitest";
import { isListed, json } from "../helpers.js";
import { keepHeldAcrossDelete } from "../removal-helpers.js";


for (const keyed of [true, false]) {
  it(`${keyed ? "keyed" : "unkeyed"} scratch thread: a keep listing delivered after the DELETE's removal lists nothing`, async () => {
    const { id, first, deleting, release } = await keepHeldAcrossDelete(keyed ? `late-keep-${crypto.randomUUID()}` : undefined);
    // The account answers only after the grace: the removal went on and unlisted (id, meta.createdAt).
    expect(await deleting).toEqual({ status: 200, body: { deleted: true } });
    await release();
    await first;
    await new Promise((r) => setTimeout(r, 200));
    expect({ listed: await isListed(id), deleteAgain: (await json("DELETE", `/threads/${id}`)).status }).toEqual({ listed: false, deleteAgain: 404 });
  }, 90_000);
}
