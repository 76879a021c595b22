// @ts-check
/**
 * `--via openai|anthropic`: instead of weft's scripted model, each case's steps are streamed by a
 * fake provider server in that wire format (scripts/lib/fake-provider.mjs), and weft reaches it
 * through its AI SDK adapter. A thin transport layer over the harness's client: every thread gets
 * its own API key (so the fake plays that thread's steps), the model and the fake's base URL in
 * its env; a posted `script` goes to the fake instead of weft.
 * @module
 */
import { randomUUID } from "node:crypto";
import { createFakeProvider, serveFakeProvider } from "../lib/fake-provider.mjs";

/** The providers `--via` can play, with the model and env names each uses. */
export const VIA = {
  openai: { spec: "openai:gpt-4.1-mini", keyEnv: "OPENAI_API_KEY", urlEnv: "OPENAI_BASE_URL", strict: true },
  anthropic: { spec: "anthropic:claude-sonnet-4-5", keyEnv: "ANTHROPIC_API_KEY", urlEnv: "ANTHROPIC_BASE_URL" },
};

/**
 * Starts the fake provider and wraps `client` so threads talk to it.
 * @param {ReturnType<typeof import("./client.mjs").createClient>} client
 * @param {keyof typeof VIA} via
 * @returns {Promise<{ client: ReturnType<typeof import("./client.mjs").createClient>, url: string, close(): Promise<void> }>}
 */
export async function viaProvider(client, via) {
  const provider = VIA[via];
  if (!provider) throw new Error(`--via ${via}: expected one of ${Object.keys(VIA).join(", ")}`);
  const fake = createFakeProvider();
  const server = await serveFakeProvider(fake);
  /** @type {Map<string, string>} */
  const keys = new Map();
  return {
    url: server.url,
    close: server.close,
    client: {
      ...client,
      async createThread(body) {
        const key = `bfcl-${randomUUID()}`;
        const env = {
          ...(body.env ?? {}),
          WEFT_MODEL: { value: provider.spec, type: "text" },
          [provider.keyEnv]: { value: key, type: "secret" },
          [provider.urlEnv]: { value: `${server.url}/v1`, type: "text" },
        };
        const created = await client.createThread({ ...body, env });
        keys.set(created.threadId, key);
        return created;
      },
      async postMessage(threadId, body) {
        const { script, ...rest } = body;
        const key = keys.get(threadId);
        if (!key) throw new Error(`--via: thread ${threadId} was not created through this client`);
        // Arguments stream in small deltas, as a provider sends them.
        fake.script(key, (script ?? []).map((/** @type {any} */ step) => ({ ...step, chunk: 7 })));
        return client.postMessage(threadId, rest);
      },
    },
  };
}
