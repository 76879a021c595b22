/**
 * A thread whose agent is no longer deployed (a deploy removed or renamed it): the thread starts,
 * can be read, subscribed to and deleted; what needs the agent (a new message, a direct call, a
 * resumed turn) gets `agent_not_found` naming it; the user's budgets can still be set; the
 * watchdog alarm finishes instead of throwing.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { API_KEYS, eventsOf, inThread, rawStub, stubOf, until } from "../helpers.js";
import { freshUser, send } from "../usage/users.js";

const GONE = "gone_agent_probe";

/**
 * A thread that ran one scripted turn (as a fresh user, or the shared `tester` whose WebSocket
 * helpers the test uses), then its stored agent renamed to one the deployment lacks, and restarted.
 */
async function threadOfGoneAgent(opts: { leaveRunning?: boolean; tester?: boolean } = {}): Promise<{ token: string; id: string }> {
  const user = opts.tester ? { token: API_KEYS.tester } : await freshUser("agent-gone");
  const created = await send(user.token, "POST", "/threads", { agent: "guarantees" });
  expect(created.status).toBe(201);
  const id = created.body.threadId as string;
  expect((await send(user.token, "POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "hello" }] })).status).toBe(202);
  await stubOf(id).waitIdle();
  // Its agent deployed: nothing said missing.
  expect((await send(user.token, "GET", `/threads/${id}`)).body).not.toHaveProperty("agentMissing");
  await inThread(id, (t) => {
    const meta = t.store.meta.read();
    t.store.meta.write({ ...meta, agentId: GONE });
    // A turn a restart cut while the agent went away: the watchdog resumes it.
    if (opts.leaveRunning) t.ctx.storage.sql.exec("UPDATE turns SET status = 'running' WHERE turn_id = (SELECT turn_id FROM turns ORDER BY rowid DESC LIMIT 1)");
  });
  await inThread(id, (t) => t.restartForTest()).catch(() => undefined);
  return { token: user.token, id };
}

describe("a thread whose agent is no longer deployed", () => {
  it("is read, listed, subscribed to and deleted; a new message and a direct call get agent_not_found", async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.map(String).join(" "));
    try {
      const { token, id } = await threadOfGoneAgent({ tester: true });
      const info = await send(token, "GET", `/threads/${id}`);
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({ threadId: id, agentId: GONE, status: "idle", tools: [], models: [], agentMissing: { code: "agent_not_found", message: expect.stringContaining(`"${GONE}" is no longer deployed`) } });
      const messages = await send(token, "GET", `/threads/${id}/messages`);
      expect(messages.status).toBe(200);
      expect(messages.body.messages.map((m: { content: string }) => m.content)).toEqual(["hi", "hello"]);
      expect((await send(token, "GET", `/threads/${id}/calls`)).status).toBe(200);
      expect((await send(token, "GET", `/threads/${id}/usage`)).status).toBe(200);
      // Subscribed to: the replay has every event, the first turn's among them.
      const types = (await eventsOf(id)).map((e) => e.type);
      expect(types[0]).toBe("thread_created");
      expect(types).toContain("turn_finished");
      const posted = await send(token, "POST", `/threads/${id}/messages`, { content: "again", script: [{ text: "no" }] });
      expect(posted.status).toBe(404);
      expect(posted.body.error.code).toBe("agent_not_found");
      expect(posted.body.error.message).toContain(`"${GONE}" is no longer deployed`);
      expect(posted.body.error.details).toMatchObject({ agentId: GONE });
      // Nothing of the refused message was kept.
      expect((await send(token, "GET", `/threads/${id}/messages`)).body.messages).toHaveLength(2);
      const call = await send(token, "POST", "/v1/tools/effect_read", { sessionId: id, input: {} });
      expect(call.body.error?.code).toBe("agent_not_found");
      expect(call.status).toBe(404);
      expect((await send(token, "DELETE", `/threads/${id}`)).status).toBeLessThan(300);
      expect((await send(token, "GET", `/threads/${id}`)).status).toBe(404);
    } finally {
      console.error = original;
    }
    expect(errors.filter((e) => String(e).includes(GONE))).toEqual([]);
  });

  it("does not block the user's budgets: the handover finds nothing under way", async () => {
    const { token, id } = await threadOfGoneAgent();
    const budgets = [{ scope: "user", period: "day", tokens: 5000 }];
    const put = await send(token, "PUT", "/account/budgets", { budgets });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ budgets });
    expect((await send(token, "GET", `/threads/${id}`)).status).toBe(200);
  });

  it("a turn cut while its agent went away ends failed with agent_not_found when the watchdog resumes it, and the alarm stops", async () => {
    const { token, id } = await threadOfGoneAgent({ leaveRunning: true });
    await inThread(id, (t) => t.ctx.storage.setAlarm(Date.now()));
    for (let i = 0; i < 5 && (await runDurableObjectAlarm(rawStub(id))); i++);
    const info = await send(token, "GET", `/threads/${id}`);
    expect(info.status).toBe(200);
    expect(info.body.status).toBe("idle");
    expect(info.body.lastTurn).toMatchObject({ status: "failed", errorCode: "agent_not_found" });
    expect(info.body.lastTurn.error).toContain(`"${GONE}" is no longer deployed`);
    expect(await inThread(id, (t) => t.ctx.storage.getAlarm())).toBeNull();
  });

  it("a call waiting for approval is not approved (its tool went with the agent); a denial ends the wait and the turn fails with agent_not_found", async () => {
    const token = API_KEYS.tester;
    const created = await send(token, "POST", "/threads", { agent: "guarantees" });
    const id = created.body.threadId as string;
    await send(token, "POST", `/threads/${id}/messages`, { content: "pay", script: [{ toolCalls: [{ id: "pay", name: "needs_ok", arguments: { amount: 500 } }] }, { text: "done" }] });
    await stubOf(id).waitIdle();
    await inThread(id, (t) => t.store.meta.write({ ...t.store.meta.read(), agentId: GONE }));
    await inThread(id, (t) => t.restartForTest()).catch(() => undefined);
    // The watchdog leaves the wait to a person: it neither loops nor throws.
    for (let i = 0; i < 3 && (await runDurableObjectAlarm(rawStub(id))); i++);
    expect((await send(token, "GET", `/threads/${id}`)).body.status).toBe("waiting");
    const approved = await send(token, "POST", `/threads/${id}/calls/pay/approve`, {});
    expect([approved.status, approved.body.error?.code]).toEqual([404, "agent_not_found"]);
    expect((await send(token, "GET", `/threads/${id}/calls/pay`)).body.status).toBe("awaiting_approval");
    expect((await send(token, "POST", `/threads/${id}/calls/pay/deny`, { reason: "gone" })).status).toBe(200);
    await until(async () => (await send(token, "GET", `/threads/${id}`)).body.status === "idle", "the denied turn ended");
    expect((await send(token, "GET", `/threads/${id}`)).body.lastTurn).toMatchObject({ status: "failed", errorCode: "agent_not_found" });
  });
});
