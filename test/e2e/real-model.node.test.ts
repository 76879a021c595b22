/**
 * The README's promise: one env value switches the example agents from the scripted model to a
 * real provider. `npm start`'s project (wrangler.toml, agents/) runs under `wrangler dev` with
 * `WEFT_MODEL=openai:gpt-4.1-mini` and the key and base URL pointing at a fake OpenAI server that
 * speaks the real wire format; the support desk then runs both sides on the model, with no script.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createFakeProvider, serveFakeProvider } from "../../scripts/lib/fake-provider.mjs";
import { startDevServer } from "../../scripts/lib/dev-server.mjs";
import { call, createThread, waitIdle } from "./support.js";

const fake = createFakeProvider();
const KEY = "sk-fake-readme";
let provider: { url: string; close(): Promise<void> };
let weft: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  provider = await serveFakeProvider(fake);
  weft = await startDevServer({
    config: "wrangler.toml",
    readyPath: "/v1/tools",
    extraArgs: ["--var", "WEFT_MODEL:openai:gpt-4.1-mini", "--var", `OPENAI_API_KEY:${KEY}`, "--var", `OPENAI_BASE_URL:${provider.url}/v1`],
  });
}, 300_000);

afterAll(async () => {
  await weft?.stop();
  await provider?.close();
});

it("with WEFT_MODEL set, the support desk plays both sides on the provider, and a posted script is refused", async () => {
  fake.script(KEY, [
    { text: "Hello, this is support. How can I help?" },
    { text: "Hi, my order A-1001 has not arrived yet." },
    { toolCalls: [{ id: "call_lookup", name: "lookup_order", arguments: '{"orderId":"A-1001"}' }] },
    { text: "Your blue kettle ships with Parcelo, due 2 December." },
    { toolCalls: [{ id: "call_end", name: "end_chat", arguments: '{"solved":true}' }] },
  ]);
  const id = await createThread(weft.url, { agent: "support_desk", arguments: { customerName: "Ada", orderId: "A-1001" } });
  const refused = await call(weft.url, "POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "never" }] });
  expect(refused.status).toBe(400);
  expect((await call(weft.url, "POST", `/threads/${id}/messages`, { content: "(Ada opens the chat)" })).status).toBe(202);
  const info = await waitIdle(weft.url, id);
  expect(info.lastTurn).toMatchObject({ status: "stopped", steps: 5 });
  const messages = (await call(weft.url, "GET", `/threads/${id}/messages?maxDepth=0`)).body.messages as Array<{ role: string; side?: string; content: string }>;
  expect(messages.filter((m) => m.role === "assistant" && m.content !== "").map((m) => `${m.side}:${m.content}`)).toEqual([
    "a:Hello, this is support. How can I help?",
    "b:Hi, my order A-1001 has not arrived yet.",
    "a:Your blue kettle ships with Parcelo, due 2 December.",
  ]);
  const requests = fake.requests.filter((r) => r.key === KEY);
  expect(requests).toHaveLength(5);
  expect(requests.every((r) => r.body.model === "gpt-4.1-mini")).toBe(true);
  // Side b's requests carry the customer's prompt, built from the thread's arguments.
  expect(JSON.stringify(requests[1]!.body)).toContain("You are Ada");
  expect(JSON.stringify(requests[0]!.body)).not.toContain("You are Ada");
}, 300_000);
