/**
 * `DELETE /threads/:id` racing the rest of the system, beyond the calls it waits for: the owner's
 * thread index when a create of the same id interleaves with the delete, and the watchdog alarm
 * that fires while the delete waits (`WEFT_DELETE_GRACE_MS`, 5 s in test/wrangler.toml).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { accountOf } from "../../src/account/api.js";
import { createThread, inThread, json, rawStub, stubOf } from "../helpers.js";
import { OWNER, direct, untilDeleting, untilStarted } from "../removal-helpers.js";

/** How many times `GET /threads` lists `id`. */
async function listedTimes(id: string): Promise<number> {
  const listed = await json("GET", "/threads?limit=100");
  return listed.body.threads.filter((t: { threadId: string }) => t.threadId === id).length;
}

describe("DELETE /threads/:id and what runs beside it", () => {
  it("a create whose index entry the Worker wrote before the delete unlisted the id, reaching the thread after the delete ended, is listed", async () => {
    const token = `delete-review:${crypto.randomUUID()}`;
    const first = await json("POST", "/threads", { agent: "deletable", continuationToken: token });
    expect(first.status).toBe(201);
    const id = first.body.threadId as string;
    const held = direct("slow_write", { ms: 300 }, id);
    await untilStarted(id, 1);
    const deleting = json("DELETE", `/threads/${id}`);
    await untilDeleting(id);
    // `POST /threads` in two steps, as the Worker takes them: the index entry first (found there
    // already, left as it is), then the thread's create, which here reaches the thread only after
    // the delete ended (the Worker was slow between its two requests).
    const account = accountOf((env as unknown as { ACCOUNT: DurableObjectNamespace }).ACCOUNT, OWNER.userId);
    expect((await account.addThread({ threadId: id, agentId: "deletable", createdAt: Date.now() }, 1000)).ok).toBe(true);
    expect((await deleting).status).toBe(200);
    expect((await held).status).toBe(200);
    const created = await stubOf(id).create(OWNER, { agent: "deletable" }, id);
    expect(created.ok).toBe(true);
    // The new thread exists: it must be listed (and count against the per-user limit).
    expect((await json("GET", `/threads/${id}`)).status).toBe(200);
    expect(await listedTimes(id)).toBe(1);
  });

  it("a crash right after the rows were deleted leaves no entry in GET /threads naming the thread that is gone", async () => {
    const id = await createThread({ agent: "deletable" });
    expect(await listedTimes(id)).toBe(1);
    // The thread is cut (a real ctx.abort(), as the crash tests cut it) at the step after its rows go.
    await inThread(id, (t) => {
      const forget = t.store.forget.bind(t.store);
      t.store.forget = () => {
        t.ctx.abort("crash after the rows were deleted");
        forget();
      };
    });
    // The delete's client learns the thread restarted (retryable), not that it was deleted.
    expect((await json("DELETE", `/threads/${id}`)).body.error.code).toBe("thread_restarted");
    expect((await json("GET", `/threads/${id}`)).body.error.code).toBe("thread_not_found");
    // An entry left now would name no thread for good: a delete of it answers 404, and it counts
    // against the per-user limit.
    expect((await json("DELETE", `/threads/${id}`)).status).toBe(404);
    expect(await listedTimes(id)).toBe(0);
  });

  it("the watchdog alarm that fires while the delete waits leaves the alarm armed for the write still running", async () => {
    const id = await createThread({ agent: "deletable" });
    // Still running after the alarm and the wait below, and done within the grace (5 s), on a loaded machine.
    const held = direct("slow_write", { ms: 2500 }, id);
    await untilStarted(id, 1);
    const deleting = json("DELETE", `/threads/${id}`);
    await untilDeleting(id);
    // The alarm fires during the grace (WEFT_WATCHDOG_MS is 100 ms here; run now if it has not).
    await runDurableObjectAlarm(rawStub(id));
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The write's journal row is still unfinished: should a crash cut the delete now, only the
    // alarm brings the thread back to recover it, so one must still be set.
    const during = await inThread(id, async (t) => ({ removing: t.inFlight.removing !== null, alarm: await t.ctx.storage.getAlarm() }));
    expect(during.removing).toBe(true);
    expect(during.alarm).not.toBeNull();
    expect((await deleting).status).toBe(200);
    expect((await held).status).toBe(200);
    // The delete removed the alarm with the rest.
    expect(await inThread(id, (t) => t.ctx.storage.getAlarm())).toBeNull();
  });
});
