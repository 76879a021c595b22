/**
 * Review (identity): another user learns nothing of whether a thread id names a thread. For every
 * route under `/threads/:id`, as sent by a user who does not own the thread (with and without an
 * `Idempotency-Key`), the answer for an existing thread of someone else equals the answer for an id
 * no thread was ever made on (the id itself written out of both); so do a direct call and an MCP
 * `tools/call` naming it as their session, and an admin's writes (an admin reads any thread).
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { createApp, routeList } from "../../src/http/app.js";
import { registry } from "../generated/registry.js";
import { API_KEYS, json, request, stubOf } from "../helpers.js";

const BODIES: Record<string, unknown> = {
  "POST /threads/:id/messages": { content: "hello", script: [{ text: "hi" }] },
  "POST /threads/:id/chat": { messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }] },
  "POST /threads/:id/calls/:callId/approve": {},
  "POST /threads/:id/calls/:callId/deny": { reason: "no" },
  "POST /threads/:id/calls/:callId/settle": { outcome: "retry" },
  "POST /threads/:id/calls/:callId/result": { result: "ok" },
  "POST /threads/:id/schedules": { every: "1h", target: { tool: "roll_dice", input: {} } },
};

it("answers another user alike for someone else's thread and for an id no thread was made on", async () => {
  const made = await json<{ threadId: string }>("POST", "/threads", {}, "alice");
  expect(made.status).toBe(201);
  const real = made.body.threadId;
  expect((await json("POST", `/threads/${real}/messages`, { content: "hello", script: [{ toolCalls: [{ id: "c1", name: "roll_dice", arguments: { count: 1 } }] }, { text: "done" }] }, "alice")).status).toBe(202);
  await stubOf(real).waitIdle();
  const never = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD.newUniqueId().toString();
  const routes = routeList(createApp(registry)).filter((r) => r.includes("/threads/:id"));
  expect(routes.length).toBeGreaterThan(10);
  const differences: string[] = [];
  for (const route of routes) {
    const [method, pattern] = route.split(" ") as [string, string];
    for (const key of [null, "k-1"]) {
      const seen: string[] = [];
      for (const id of [real, never]) {
        const path = pattern.replace(":id", id).replace(":callId", "c1").replace(":scheduleId", "s1").replace("*", "calls/c1/result.txt");
        const body = BODIES[route];
        const headers: Record<string, string> = { authorization: `Bearer ${API_KEYS.bob}` };
        if (body !== undefined) headers["content-type"] = "application/json";
        if (key) headers["idempotency-key"] = key;
        if (route.endsWith("/ws")) headers.upgrade = "websocket";
        const res = await request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, null);
        const text = res.webSocket ? "(socket)" : await res.text();
        const kept = [...res.headers].filter(([k]) => !["date", "content-length"].includes(k));
        seen.push(`${res.status} ${JSON.stringify(kept)} ${text.split(id).join("<id>")}`);
      }
      if (seen[0] !== seen[1]) differences.push(`${route}${key ? " (keyed)" : ""}:\n  theirs: ${seen[0]}\n  never:  ${seen[1]}`);
    }
  }
  // A session named in a direct call, over HTTP and MCP; and an admin's writes (an admin may read any thread, act on none).
  const elsewhere = async (id: string, as: "bob" | "root") => {
    const direct = await json("POST", "/v1/tools/roll_dice", { input: { count: 1 }, sessionId: id }, as);
    const mcp = await json("POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "roll_dice", arguments: { count: 1 }, _meta: { "weft/sessionId": id } } }, as);
    const writes = await Promise.all([
      json("POST", `/threads/${id}/messages`, { content: "hi" }, "root"),
      json("POST", `/threads/${id}/calls/c1/deny`, { reason: "no" }, "root"),
      json("DELETE", `/threads/${id}`, undefined, "root"),
    ]);
    return JSON.stringify([direct, mcp, as === "root" ? writes : null]).split(id).join("<id>");
  };
  for (const as of ["bob", "root"] as const) {
    const [theirs, none] = [await elsewhere(real, as), await elsewhere(never, as)];
    if (theirs !== none) differences.push(`${as} elsewhere:\n  theirs: ${theirs}\n  never:  ${none}`);
  }
  expect(differences).toEqual([]);
  // The thread is still there, untouched by all of it.
  expect((await json("GET", `/threads/${real}`, undefined, "alice")).status).toBe(200);
});
