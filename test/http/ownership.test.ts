import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { SCRATCH_TTL_MS } from "../../src/thread/guard.js";
import { registry } from "../generated/registry.js";
import { callsOf, createThread, inThread, json, effectRuns, rawStub, request, stubOf } from "../helpers.js";

describe("ownership", () => {
  it("another user gets 404 thread_not_found on every route; an admin may read but not act", async () => {
    const id = await createThread({ userId: "bob" }); // a userId field is ignored: tester owns it
    expect((await json("GET", `/threads/${id}`)).body.userId).toBe("tester");
    for (const [method, path, body] of [
      ["GET", `/threads/${id}`],
      ["GET", `/threads/${id}/messages`],
      ["POST", `/threads/${id}/messages`, { content: "hi" }],
      ["GET", `/threads/${id}/files`],
      ["POST", `/threads/${id}/stop`],
    ] as Array<[string, string, unknown?]>) {
      const other = await json(method, path, body, "alice");
      expect([method, path, other.status, other.body.error?.code]).toEqual([method, path, 404, "thread_not_found"]);
    }
    expect((await json("GET", `/threads/${id}/messages`, undefined, "root")).status).toBe(200);
    expect((await json("POST", `/threads/${id}/messages`, { content: "hi" }, "root")).status).toBe(404);
  });

  it("refuses another user's WebSocket upgrade with a plain 404, before any socket is accepted", async () => {
    const id = await createThread();
    const res = await request(`/threads/${id}/ws`, { headers: { Upgrade: "websocket" } }, "alice");
    expect(res.status).toBe(404);
    expect(res.webSocket).toBeNull();
    expect((await res.json<any>()).error.code).toBe("thread_not_found");
    const none = await request(`/threads/${id}/ws`, { headers: { Upgrade: "websocket" } }, null);
    expect(none.status).toBe(401);
    const viaQuery = await request(`/threads/${id}/ws?access_token=test-key-tester`, { headers: { Upgrade: "websocket" } }, null);
    expect(viaQuery.status).toBe(101);
    viaQuery.webSocket!.accept();
    viaQuery.webSocket!.close();
  });

  it("scopes continuation tokens and sessions to their principal", async () => {
    const token = `chat:${crypto.randomUUID()}`;
    const mine = await json("POST", "/threads", { continuationToken: token }, "alice");
    const theirs = await json("POST", "/threads", { continuationToken: token }, "bob");
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(mine.body.threadId).not.toBe(theirs.body.threadId);
    const again = await json("POST", "/threads", { continuationToken: token }, "alice");
    expect(again.status).toBe(409);
    const session = await json("POST", "/v1/tools/get_weather", { input: { city: "Oslo" }, sessionId: mine.body.threadId }, "bob");
    expect([session.status, session.body.error.code]).toEqual([404, "session_not_found"]);
  });

  it("lists the caller's threads newest first, with a cursor, and no one else's", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await json("POST", "/threads", {}, "bob")).body.threadId);
      await new Promise((r) => setTimeout(r, 2));
    }
    const first = await json("GET", "/threads?limit=3", undefined, "bob");
    expect(first.body.threads.map((t: any) => t.threadId)).toEqual(ids.slice(-3).reverse());
    const second = await json("GET", `/threads?limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`, undefined, "bob");
    const rest = second.body.threads.map((t: any) => t.threadId);
    expect(rest.slice(0, 2)).toEqual(ids.slice(0, 2).reverse());
    const alice = await json("GET", "/threads?limit=200", undefined, "alice");
    for (const id of ids) expect(alice.body.threads.map((t: any) => t.threadId)).not.toContain(id);
    const bad = await json("GET", "/threads?cursor=nonsense", undefined, "bob");
    expect([bad.status, bad.body.error.details.path]).toEqual([400, ["cursor"]]);
  });

  it("refuses a thread over the per-user limit with 429 and writes nothing", async () => {
    const app = createApp(registry);
    const have = (await json("GET", "/threads?limit=200", undefined, "bob")).body.threads.length as number;
    const vars = { ...(env as object), WEFT_MAX_THREADS_PER_USER: String(have + 2) } as never;
    const create = () =>
      Promise.resolve(app.fetch(new Request("http://weft.test/threads", { method: "POST", headers: { authorization: "Bearer test-key-bob", "content-type": "application/json" }, body: "{}" }), vars));
    expect([(await create()).status, (await create()).status]).toEqual([201, 201]);
    const res = await create();
    const body = await res.json<any>();
    expect([res.status, body.error.code]).toEqual([429, "too_many_threads"]);
    expect(body.error.message).toMatch(new RegExp(`the limit is ${have + 2} threads per user`));
    expect((await json("GET", "/threads?limit=200", undefined, "bob")).body.threads).toHaveLength(have + 2);
    // Deleting one makes room again.
    const bobs = await json("GET", "/threads?limit=200", undefined, "bob");
    const victim = bobs.body.threads[0].threadId;
    expect((await json("DELETE", `/threads/${victim}`, undefined, "alice")).status).toBe(404);
    expect((await json("DELETE", `/threads/${victim}`, undefined, "bob")).body).toEqual({ deleted: true });
    expect((await json("GET", `/threads/${victim}`, undefined, "bob")).status).toBe(404);
    expect((await create()).status).toBe(201);
  });
});

describe("scratch threads of direct calls", () => {
  it("are removed by their own alarm when the Worker dies before removing them", async () => {
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const id = ns.newUniqueId();
    const caller = { userId: "tester", name: "tester", roles: [], admin: false };
    const stub = ns.get(id) as unknown as import("../../src/thread/api.js").ThreadApi;
    expect((await stub.create(caller, { ephemeral: true }, id.toString())).ok).toBe(true);
    // The Worker "dies" here: nobody calls destroy(). Time passes past the scratch TTL.
    await inThread(id.toString(), (instance) => {
      instance.world.meta.createdAt -= SCRATCH_TTL_MS + 1;
      instance.store.meta.write(instance.world.meta);
    });
    expect(await runDurableObjectAlarm(rawStub(id.toString()))).toBe(true);
    expect((await stubOf(id.toString()).info(caller)).ok).toBe(false);
    expect(await inThread(id.toString(), (instance) => instance.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray().length)).toBe(0);
  });

  it("keep and list a scratch thread whose direct write a restart parked, past the scratch TTL too", async () => {
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const id = ns.newUniqueId();
    const threadId = id.toString();
    const caller = { userId: "tester", name: "tester", roles: [], admin: false };
    const stub = ns.get(id) as unknown as import("../../src/thread/api.js").ThreadApi;
    // A direct write without a session; its first run hangs after its effect, and the thread restarts there.
    const pending = stub.scratchCall(caller, {}, threadId, { toolName: "effect_write", input: { hang: true }, callId: "w" }).catch(() => undefined);
    for (let i = 0; i < 400 && (await effectRuns(threadId, "w")).runs === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await effectRuns(threadId, "w")).runs).toBe(1);
    await inThread(threadId, (instance) => instance.ctx.abort("crash inside execute")).catch(() => undefined);
    await pending;
    // The client never got an answer; the thread's own alarm recovers the call: a write is parked, never run again.
    await runDurableObjectAlarm(rawStub(threadId));
    expect((await callsOf(threadId)).map((c) => [c.callId, c.status])).toEqual([["w", "parked"]]);
    // A parked call waits for a person, who can only find it in their list of threads.
    const listed = (await json("GET", "/threads?limit=200")).body.threads.map((t: any) => t.threadId);
    expect(listed).toContain(threadId);
    // Past the scratch TTL the alarm keeps it: removing it would lose the record of a write that may have happened.
    await inThread(threadId, (instance) => {
      instance.world.meta.createdAt -= SCRATCH_TTL_MS + 1;
      instance.store.meta.write(instance.world.meta);
    });
    await runDurableObjectAlarm(rawStub(threadId));
    expect((await json("GET", `/threads/${threadId}`)).body).toMatchObject({ ephemeral: false });
    const settled = await json("POST", `/threads/${threadId}/calls/w/settle`, { outcome: "succeeded", result: "done by hand" });
    expect([settled.status, settled.body.status]).toEqual([200, "succeeded"]);
    expect((await effectRuns(threadId, "w")).runs).toBe(1);
  });

  it("a deleted thread closes its open WebSockets, so a client is not left waiting on a thread that is gone", async () => {
    const id = await createThread();
    const res = await request(`/threads/${id}/ws`, { headers: { Upgrade: "websocket" } });
    const ws = res.webSocket!;
    ws.accept();
    const closed = new Promise<[number, string]>((resolve) => ws.addEventListener("close", (e) => resolve([e.code, e.reason])));
    expect((await json("DELETE", `/threads/${id}`)).body).toEqual({ deleted: true });
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("still open after 2 s"), 2000));
    expect(await Promise.race([closed, timeout])).toEqual([1000, "thread deleted"]);
    // A reconnect is refused with a plain 404, which ends a client's subscription.
    expect((await request(`/threads/${id}/ws`, { headers: { Upgrade: "websocket" } })).status).toBe(404);
  });
});
