// @ts-check
/**
 * The fake model provider every target's turn over a provider reaches: the project's own
 * (scripts/lib/fake-provider.mjs, the OpenAI Responses wire format with streaming, argument deltas
 * and the request validator), served on loopback by this process. Each target's workerd sends
 * every outbound fetch there (its `globalOutbound`), so `http://fake-provider.test/v1` in a
 * thread's settings reaches it. The fake plays steps queued per API key: each turn thread has its
 * own key, and {@link scriptTurn} queues a turn's two steps before the turn is sent.
 * @module
 */
import { randomUUID } from "node:crypto";
import { createFakeProvider, serveFakeProvider } from "../../../scripts/lib/fake-provider.mjs";

/** The base URL a turn thread's provider settings name (any host reaches the fake). */
export const FAKE_BASE = "http://fake-provider.test/v1";

/** Starts the fake: `{ fake, port, close }`. */
export async function startProvider() {
  const fake = createFakeProvider();
  const server = await serveFakeProvider(fake);
  return { fake, port: Number(new URL(server.url).port), close: server.close };
}

/** A fresh API key for one turn thread. */
export const freshKey = () => `bench-${randomUUID()}`;

let ids = 0;

/**
 * Queues weft's scripted turn as provider steps for `key`: three `bench_read` calls
 * (`{ n, text: "turn" }`, fresh call ids), then the text "done".
 * @param {ReturnType<typeof createFakeProvider>} fake
 * @param {string} key
 */
export function scriptTurn(fake, key) {
  const toolCalls = [0, 1, 2].map((n) => ({ id: `call_b${++ids}`, name: "bench_read", arguments: JSON.stringify({ n, text: "turn" }) }));
  fake.script(key, [{ toolCalls }, { text: "done" }]);
}
