/**
 * Built-in events are held for the settle window (`world.emit`), as is the journal row of a read
 * that may answer at once (`CallStore.hold`); `ThreadStore.settle` stores both, in the window
 * (before the object waits for I/O, so the events commit with the rows they describe) or before
 * a transaction. A held row that fails to insert must not keep the events held with it: the
 * window closes on the throw, and they would wait in memory past the commit, lost to an eviction
 * or a restart while the rows they announce stay (found by a review of held built-in events: a
 * stored message's `message_created` was gone after the object was evicted).
 */
import { evictDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { createThread, eventsStoredIn, inThread, rawStub } from "../../helpers.js";

it("settling a held call row that fails to insert still stores the held events", async () => {
  const id = await createThread({ agent: "robustness" });
  const call = { callId: "taken", toolName: "effect_write", source: "direct", argsText: "{}", effectKey: `${id}:taken` } as const;
  const settled = await inThread(id, (i) => {
    i.store.calls.insert({ ...call, status: "queued" });
    i.world.appendMessage({ role: "user", content: "stored, and announced" });
    // A held row that cannot be inserted (its id is taken): settling it throws, as the window's settle would.
    i.store.calls.hold({ ...call, status: "started" });
    let thrown = "";
    try {
      i.store.atomically(() => undefined);
    } catch (e) {
      thrown = String(e);
    }
    return { thrown, holding: i.store.events.holding() as boolean };
  });
  expect(settled.thrown).toMatch(/UNIQUE constraint failed: calls\.call_id/);
  expect(settled.holding).toBe(false);
  await evictDurableObject(rawStub(id));
  const stored = await inThread(id, (i) => ({
    messages: i.ctx.storage.sql.exec("SELECT COUNT(*) AS n FROM messages").one().n as number,
    events: eventsStoredIn(i.ctx.storage.sql).map((e) => e.type),
  }));
  expect(stored).toEqual({ messages: 1, events: ["thread_created", "message_created"] });
});
