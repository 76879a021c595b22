/**
 * A removed thread ends its remote MCP sessions at their servers: every way a thread is removed
 * (`DELETE /threads/:id`, a scratch thread's end after its direct call, a scratch thread its own
 * alarm removes) sends MCP's session termination, an HTTP `DELETE` naming the session, before the
 * removal answers; the server no longer keeps the session until its own timeout. The server is
 * the fake good one (scripts/lib/fake-mcp.mjs), whose `/__session` says which session a tagged
 * `lookup` came in and whether a `DELETE` has named it.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SESSION_END_MS } from "../../src/remote/connection.js";
import { SCRATCH_TTL_MS } from "../../src/thread/guard.js";
import { callsOf, createThread, inThread, json, rawStub, runTurn, stubOf } from "../helpers.js";

const tag = () => crypto.randomUUID().slice(0, 8);

/** The session the `lookup` tagged `t` came in, and whether a `DELETE` ended it. */
async function sessionOf(t: string): Promise<{ session: string | null; ended: boolean }> {
  return (await fetch(`https://tools.mcp.test/__session?tag=${t}`)).json();
}

const caller = { userId: "tester", name: "tester", roles: [], admin: false };

/** A new thread id of the Thread namespace (a scratch thread's, made by RPC as the Worker makes one). */
function newThreadId(): string {
  return (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();
}

describe("a removed thread's remote MCP sessions", () => {
  it("DELETE /threads/:id ends the session a turn's remote call opened, at its server, before it answers", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const t = tag();
    await runTurn(id, "go", [{ toolCalls: [{ id: "c1", name: "remote__lookup", arguments: { id: "1", tag: t } }] }, { text: "done" }]);
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded" });
    const opened = await sessionOf(t);
    expect(opened.session).toEqual(expect.any(String));
    expect(opened.ended).toBe(false);
    expect((await json("DELETE", `/threads/${id}`)).body).toEqual({ deleted: true });
    expect(await sessionOf(t)).toEqual({ session: opened.session, ended: true });
  });

  it("DELETE /threads/:id ends the session a direct call in it opened", async () => {
    const id = await createThread({ agent: "remote_mcp" });
    const t = tag();
    const called = await json("POST", "/v1/tools/remote__lookup", { input: { id: "2", tag: t }, sessionId: id });
    expect(called.body).toMatchObject({ ok: true, result: "record 2" });
    expect((await sessionOf(t)).ended).toBe(false);
    expect((await json("DELETE", `/threads/${id}`)).status).toBe(200);
    expect((await sessionOf(t)).ended).toBe(true);
  });

  it("a scratch thread removed after its direct call ends the session the call opened", async () => {
    const threadId = newThreadId();
    const t = tag();
    const result = await stubOf(threadId).scratchCall(caller, { agent: "remote_mcp" }, threadId, { toolName: "remote__lookup", input: { id: "3", tag: t } });
    expect(result).toMatchObject({ ok: true, value: { status: "succeeded", kept: false } });
    expect((await sessionOf(t)).ended).toBe(true);
  });

  it("a scratch thread its own alarm removes ends the session its call opened", async () => {
    const threadId = newThreadId();
    const t = tag();
    expect((await stubOf(threadId).create(caller, { ephemeral: true, agent: "remote_mcp" }, threadId)).ok).toBe(true);
    // The Worker "dies" after the call: nobody removes the thread; time passes past the scratch TTL.
    expect(await stubOf(threadId).callTool(caller, { toolName: "remote__lookup", input: { id: "4", tag: t } })).toMatchObject({ ok: true });
    expect((await sessionOf(t)).ended).toBe(false);
    await inThread(threadId, (instance) => {
      instance.world.meta.createdAt -= SCRATCH_TTL_MS + 1;
      instance.store.meta.write(instance.world.meta);
    });
    expect(await runDurableObjectAlarm(rawStub(threadId))).toBe(true);
    expect((await stubOf(threadId).info(caller)).ok).toBe(false);
    expect((await sessionOf(t)).ended).toBe(true);
  });

  it("a server that never answers the DELETE holds up the removal at most SESSION_END_MS, and one answering 405 fails nothing", async () => {
    const id = await createThread({ agent: "remote_ending" });
    const [never, refused] = [tag(), tag()];
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "n", name: "lingering__lookup", arguments: { id: "5", tag: never } },
          { id: "r", name: "sessionless__lookup", arguments: { id: "6", tag: refused } },
        ],
      },
      { text: "done" },
    ]);
    expect((await callsOf(id)).map((c) => c.status)).toEqual(["succeeded", "succeeded"]);
    const started = Date.now();
    expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
    // Bounded by the cut (a loaded machine adds its own delay; an unbounded wait would never end).
    expect(Date.now() - started).toBeLessThan(SESSION_END_MS * 3);
    expect([(await sessionOf(never)).ended, (await sessionOf(refused)).ended]).toEqual([true, true]);
    expect((await json("GET", `/threads/${id}`)).status).toBe(404);
  });
});
