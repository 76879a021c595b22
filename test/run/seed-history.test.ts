/**
 * `POST /threads` with `history`: a thread starts from an earlier conversation, which its model
 * sees before the first new message; a history that breaks a conversation's rules is refused
 * naming the path, and nothing is stored.
 */
import { describe, expect, it } from "vitest";
import { fakeEnv, fakeKey, fakeRequests, scriptFake } from "../fake-provider.js";
import { env } from "cloudflare:workers";
import { eventsOf, eventsStoredIn, inThread, json, messagesOf, runTurn } from "../helpers.js";

const EARLIER = [
  { role: "user", content: "What is the weather in Paris?" },
  { role: "assistant", content: "", toolCalls: [{ id: "h1", name: "lookup", arguments: '{"q":"Paris"}' }] },
  { role: "tool", toolCallId: "h1", content: "18 C, clear" },
  { role: "assistant", content: "It is 18 C and clear in Paris." },
];

describe("a thread created with history", () => {
  it("stores the earlier conversation before any turn, and the model's first request carries it", async () => {
    const key = fakeKey("history");
    await scriptFake(key, [{ text: "Lyon is 16 C." }]);
    const created = await json<{ threadId: string }>("POST", "/threads", { env: fakeEnv("openai-chat:gpt-4o", key), history: EARLIER });
    expect(created.status).toBe(201);
    const id = created.body.threadId;
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.content])).toEqual(EARLIER.map((m) => [m.role, m.content]));
    expect(stored[2]).toMatchObject({ toolCallId: "h1", name: "lookup" });
    // Each stored message was announced, as a turn's are.
    const announced = (await eventsOf(id)).filter((f) => f.type === "message_created").map((f) => (f.data as any).message.content);
    expect(announced).toEqual(EARLIER.map((m) => m.content));
    // No call record: these calls ran elsewhere, before the thread.
    expect((await json("GET", `/threads/${id}/calls`)).body.calls).toEqual([]);

    await json("POST", `/threads/${id}/messages`, { content: "And in Lyon?" });
    let requests: Awaited<ReturnType<typeof fakeRequests>> = [];
    for (let i = 0; i < 200 && requests.length === 0; i++) {
      requests = await fakeRequests(key);
      if (requests.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    const sent = requests[0]!.body.messages as Array<{ role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
    const roles = sent.filter((m) => m.role !== "system").map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: "h1" });
    expect(JSON.stringify(sent.at(-1))).toContain("And in Lyon?");
  });

  it("replaces the thread's own secrets in what it stores", async () => {
    const created = await json<{ threadId: string }>("POST", "/threads", {
      env: { TOKEN: "sk-history-secret-123" },
      history: [{ role: "user", content: "my token is sk-history-secret-123" }],
      script: [{ text: "ok" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.threadId;
    // As stored, not only as answered (every answer is redacted on its way out anyway).
    const rows = await inThread(id, (thread) => thread.ctx.storage.sql.exec("SELECT content FROM messages").toArray() as Array<{ content: string }>);
    expect(rows).toEqual([{ content: "my token is [redacted]" }]);
    await runTurn(id, "hello", [{ text: "fine" }]);
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });

  it("keeps a failed result's isError and sends it as an error to a provider that marks errors", async () => {
    const key = fakeKey("history-error");
    await scriptFake(key, [{ text: "Try again later." }]);
    const history = [
      { role: "user", content: "Pay the invoice." },
      { role: "assistant", content: "", toolCalls: [{ id: "p1", name: "pay", arguments: "{}" }] },
      { role: "tool", toolCallId: "p1", content: "card declined", isError: true },
    ];
    const created = await json<{ threadId: string }>("POST", "/threads", { env: fakeEnv("anthropic:claude-sonnet-4-5", key), history });
    expect(created.status).toBe(201);
    const id = created.body.threadId;
    expect((await messagesOf(id))[2]).toMatchObject({ toolCallId: "p1", isError: true });
    await json("POST", `/threads/${id}/messages`, { content: "Why?" });
    let requests: Awaited<ReturnType<typeof fakeRequests>> = [];
    for (let i = 0; i < 200 && requests.length === 0; i++) {
      requests = await fakeRequests(key);
      if (requests.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    const blocks = (requests[0]!.body.messages as Array<{ content: unknown }>).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(blocks.find((b: { type: string }) => b.type === "tool_result")).toMatchObject({ tool_use_id: "p1", is_error: true });
  });

  const refused: Array<[string, unknown[], (string | number)[]]> = [
    ["a tool message that answers no call", [{ role: "user", content: "hi" }, { role: "tool", toolCallId: "x", content: "r" }], ["history", 1, "toolCallId"]],
    ["a call left without its result", [{ role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: "{}" }] }], ["history", 0]],
    [
      "a message between a call and its result",
      [{ role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: "{}" }] }, { role: "user", content: "?" }, { role: "tool", toolCallId: "a", content: "r" }],
      ["history", 1],
    ],
    [
      "a call id used twice",
      [
        { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: "{}" }] },
        { role: "tool", toolCallId: "a", content: "r" },
        { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: "{}" }] },
      ],
      ["history", 2, "toolCalls", 0, "id"],
    ],
    ["a result naming another tool", [{ role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: "{}" }] }, { role: "tool", toolCallId: "a", name: "u", content: "r" }], ["history", 1, "name"]],
    ["toolCalls on a user message", [{ role: "user", content: "hi", toolCalls: [] }], ["history", 0, "toolCalls"]],
    ["an unknown role", [{ role: "robot", content: "hi" }], ["history", 0, "role"]],
    ["an unknown field", [{ role: "user", content: "hi", contnet: "x" }], ["history", 0, "contnet"]],
    ["isError on an assistant message", [{ role: "assistant", content: "oops", isError: true }], ["history", 0, "isError"]],
  ];
  for (const [what, history, path] of refused) {
    it(`refuses ${what} (400 invalid_request naming ${path.join(".")}) and stores nothing`, async () => {
      const token = `hist:${crypto.randomUUID()}`;
      const res = await json("POST", "/threads", { history, continuationToken: token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details.path).toEqual(path);
      // Nothing was made: the same token creates a thread now.
      const again = await json("POST", "/threads", { continuationToken: token });
      expect(again.status).toBe(201);
      expect(await messagesOf(again.body.threadId)).toEqual([]);
    });
  }

  it("refuses a message too large for one row (413 payload_too_large naming it)", async () => {
    const res = await json("POST", "/threads", { history: [{ role: "user", content: "x".repeat(1024 * 1024 + 1) }] });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(res.body.error.details.path).toEqual(["history", 0, "content"]);
  });
});

describe("a history against Cloudflare's limits and the thread's later calls", () => {
  it("refuses a result whose call id makes its row too large (413 naming it), though each part fits alone", async () => {
    // The id fits in its assistant step; its result repeats it beside 1 MB of content.
    const id = "c".repeat(1400 * 1024);
    const history = [
      { role: "assistant", content: "", toolCalls: [{ id, name: "t", arguments: "{}" }] },
      { role: "tool", toolCallId: id, content: "r".repeat(1000 * 1024) },
    ];
    const res = await json("POST", "/threads", { history });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(res.body.error.details.path.slice(0, 2)).toEqual(["history", 1]);
  });

  it("refuses a message that its secrets' markers would grow past one row (413 naming it)", async () => {
    // Each 6-character secret becomes the 10-character marker: 1.5 MB of text would store as 2.5 MB.
    const content = "abcdef".repeat(262_000);
    const token = `hist:${crypto.randomUUID()}`;
    const res = await json("POST", "/threads", { env: { SHORT: "abcdef" }, history: [{ role: "assistant", content }], continuationToken: token });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(res.body.error.details.path.slice(0, 2)).toEqual(["history", 0]);
    // Refused before anything was stored: the same token creates a thread now.
    const again = await json("POST", "/threads", { continuationToken: token });
    expect(again.status).toBe(201);
    expect(await messagesOf(again.body.threadId)).toEqual([]);
  });

  it("gives a later call that reuses a history call's id a new id, so no two calls of the thread share one", async () => {
    const created = await json<{ threadId: string }>("POST", "/threads", { history: EARLIER, script: [] });
    expect(created.status).toBe(201);
    const id = created.body.threadId;
    await runTurn(id, "and Lyon?", [{ toolCalls: [{ id: "h1", name: "lookup", arguments: { q: "Lyon" } }] }, { text: "done" }]);
    const messages = (await messagesOf(id)) as Array<{ role: string; toolCalls?: Array<{ id: string }>; toolCallId?: string }>;
    const callIds = messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
    const resultIds = messages.filter((m) => m.role === "tool").map((m) => m.toolCallId);
    expect(callIds).toHaveLength(2);
    expect(new Set(callIds).size).toBe(2);
    expect(new Set(resultIds).size).toBe(2);
    // The new call's record is under the id its messages carry.
    const records = (await json("GET", `/threads/${id}/calls`)).body.calls as Array<{ callId: string }>;
    expect(records.map((r) => r.callId)).toEqual([callIds[1]]);
  });
});

describe("a history and a restart during the create", () => {
  it("announces the history in the step that stores it: a restart right after the rows leaves no message without its message_created", async () => {
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const id = ns.newUniqueId().toString();
    const owner = { userId: "tester", name: "tester", roles: [], admin: false };
    const seen = await inThread(id, async (thread) => {
      // The instance dies at the create's first wait after its transaction (its secrets' reload).
      thread.refreshSecrets = () => Promise.reject(new Error("restart"));
      const created = await thread.create(owner, { history: EARLIER }, id);
      expect(created.ok).toBe(false);
      // What reaches the commit at that wait: everything written before the microtask queue drains (held events too).
      await new Promise((resolve) => setTimeout(resolve, 0));
      const sql = thread.ctx.storage.sql;
      return {
        messages: sql.exec("SELECT COUNT(*) AS n FROM messages").one().n,
        announced: eventsStoredIn(sql).filter((e) => e.type === "message_created").length,
        created: eventsStoredIn(sql).filter((e) => e.type === "thread_created").length,
      };
    });
    expect(seen).toEqual({ messages: EARLIER.length, announced: EARLIER.length, created: 1 });
  });
});
