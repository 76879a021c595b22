/**
 * Hostile review: a tool that calls an agent (a child thread) with arguments holding a secret its
 * thread holds (its own env, or a Worker secret its code received) made the child with them as
 * written. The child's redactor holds its own secrets, not its parent's: the child's opening
 * message (what its model, on a user's own provider endpoint, is sent), its `arguments`, its
 * events and listings carried the secret. The child gets its arguments as its parent's readers see
 * them, redacted.
 */
import { expect, it } from "vitest";
import { createThread, eventsOf, json } from "../helpers.js";

const KEY = "thread-key-6c1f0a9e57";

it("a secret a tool briefs a child agent with is in none of the child's messages, arguments or events", async () => {
  const id = await createThread({ agent: "briefing", env: { KEY: { value: KEY, type: "secret" } } });
  const called = await json("POST", "/v1/tools/brief_researcher", { sessionId: id, input: { name: "KEY" } });
  expect(called.body, JSON.stringify(called.body)).toMatchObject({ ok: true });
  const started = (await eventsOf(id)).find((f) => f.type === "subagent_started");
  const child = (started?.data as { childThreadId?: string } | undefined)?.childThreadId;
  expect(child).toBeDefined();
  const reads = {
    info: (await json("GET", `/threads/${child}`)).body,
    messages: (await json("GET", `/threads/${child}/messages`)).body,
    events: await eventsOf(child!),
  };
  // Compared as booleans: a failure message holding the secret would be redacted by the console patch anyway.
  expect(Object.fromEntries(Object.entries(reads).map(([where, seen]) => [where, JSON.stringify(seen).includes(KEY)]))).toEqual({ info: false, messages: false, events: false });
  expect((reads.info as { arguments?: unknown }).arguments).toEqual({ input: "use the key [redacted]" });
});
