/**
 * The chat route under a hostile or merely long-lived client (hostile review): one request's
 * answers each cost the thread one or two Durable Object calls, so their number is bounded; and
 * the history of a thread with more calls than one page still shows its newest calls' outcomes.
 */
import { runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { MAX_CHAT_ANSWERS } from "../../src/limits.js";
import { createThread, json, rawStub, recordStatements, stubOf } from "../helpers.js";

it(`a chat request carrying more than ${MAX_CHAT_ANSWERS} tool outputs is refused at once, naming the path`, async () => {
  const id = await createThread({ agent: "browser" });
  const parts = [{ type: "step-start" }, ...Array.from({ length: MAX_CHAT_ANSWERS + 1 }, (_, i) => ({ type: "tool-pick_file", toolCallId: `c${i}`, state: "output-available", input: {}, output: "x" }))];
  const res = await json("POST", `/threads/${id}/chat`, { messages: [{ id: "a", role: "assistant", parts }] });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe("invalid_request");
  expect(res.body.error.details.path).toEqual(["messages", 0, "parts"]);
  expect(res.body.error.message).toContain(String(MAX_CHAT_ANSWERS));
});

it(`so is one carrying more than ${MAX_CHAT_ANSWERS} approval decisions and outputs together`, async () => {
  const id = await createThread({ agent: "browser" });
  const half = Math.ceil((MAX_CHAT_ANSWERS + 1) / 2);
  const decisions = Array.from({ length: half }, (_, i) => ({ type: "tool-needs_ok", toolCallId: `d${i}`, state: "approval-responded", input: {}, approval: { id: `d${i}:${"0".repeat(64)}`, approved: true } }));
  const outputs = Array.from({ length: half }, (_, i) => ({ type: "tool-pick_file", toolCallId: `o${i}`, state: "output-available", input: {}, output: "x" }));
  const res = await json("POST", `/threads/${id}/chat`, { messages: [{ id: "a", role: "assistant", parts: [{ type: "step-start" }, ...decisions, ...outputs] }] });
  expect(res.status).toBe(400);
  expect(res.body.error.details.path).toEqual(["messages", 0, "parts"]);
});

it(`a chat request carrying ${MAX_CHAT_ANSWERS} answers is taken (each an unknown call here: 404)`, async () => {
  const id = await createThread({ agent: "browser" });
  const parts = [{ type: "step-start" }, ...Array.from({ length: MAX_CHAT_ANSWERS }, (_, i) => ({ type: "tool-pick_file", toolCallId: `c${i}`, state: "output-available", input: {}, output: "x" }))];
  const res = await json("POST", `/threads/${id}/chat`, { messages: [{ id: "a", role: "assistant", parts }] });
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe("call_not_found");
});

it("GET /threads/:id/chat of a thread with more than 1000 calls shows its newest call's outcome", async () => {
  const id = await createThread({ agent: "browser" });
  const first = await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "old", name: "record_call", arguments: {} }] }, { text: "ok" }] });
  expect(first.status).toBe(202);
  await stubOf(id).waitIdle();
  // 1000 more calls, older in the list than any call made after them (no message names them).
  await runInDurableObject(rawStub(id), (instance, state) => {
    const sql = state.storage.sql;
    const row = sql.exec("SELECT * FROM calls").one();
    const columns = Object.keys(row);
    const top = sql.exec<{ m: number }>("SELECT MAX(ord) AS m FROM calls").one().m;
    state.storage.transactionSync(() => {
      for (let k = 1; k <= 1000; k++) {
        const values = columns.map((c) => (c === "ord" ? top + k : c === "call_id" ? `filler_${k}` : row[c]));
        sql.exec(`INSERT INTO calls (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...values);
      }
    });
    (instance as unknown as { store: { forget(): void } }).store.forget();
  });
  const second = await json("POST", `/threads/${id}/messages`, { content: "again", script: [{ toolCalls: [{ id: "new", name: "record_call", arguments: {} }] }, { text: "done" }] });
  expect(second.status).toBe(202);
  await stubOf(id).waitIdle();
  const chat = await json("GET", `/threads/${id}/chat`);
  expect(chat.status).toBe(200);
  const parts = chat.body.messages.flatMap((m: { parts: Array<{ type: string; toolCallId?: string; state?: string }> }) => m.parts.filter((p) => p.type === "tool-record_call"));
  expect(parts.map((p: { toolCallId?: string; state?: string }) => [p.toolCallId, p.state])).toEqual([
    ["old", "output-available"],
    ["new", "output-available"],
  ]);
});

it("GET /threads/:id/chat reads the calls its page names in one statement, not one per call", async () => {
  const id = await createThread({ agent: "browser" });
  const calls = Array.from({ length: 300 }, (_, i) => ({ id: `k${i}`, name: "record_call", arguments: {} }));
  expect((await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: calls }, { text: "ok" }] })).status).toBe(202);
  await stubOf(id).waitIdle();
  const statements = await recordStatements(id, (query) => (/\bFROM (json_each\(\?\) AS j CROSS JOIN )?calls\b/.test(query) ? query : undefined));
  await statements.take();
  const chat = await json("GET", `/threads/${id}/chat`);
  expect(chat.status).toBe(200);
  const parts = chat.body.messages.flatMap((m: { parts: Array<{ type: string; state?: string }> }) => m.parts.filter((p) => p.type === "tool-record_call"));
  expect(parts.length).toBe(300);
  expect(parts.every((p: { state?: string }) => p.state === "output-available")).toBe(true);
  expect((await statements.take()).length).toBeLessThanOrEqual(1);
});
