/**
 * Drives the fake model provider that answers every outbound fetch of the test worker
 * (scripts/lib/fake-provider.mjs, wired in vitest.config.ts).
 * @module
 */

/** Base URL tests give a thread for its provider; any host reaches the fake. */
export const FAKE_BASE = "http://fake-provider.test/v1";

/** A step the fake streams (see scripts/lib/fake-provider.mjs). */
export interface FakeStep {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** Web searches the provider runs itself, before the text (Responses and Anthropic only). */
  providerCalls?: Array<{ id: string; query: string; urls: string[] }>;
  /**
   * Usage reported in the format's own fields (see scripts/lib/fake-provider.mjs); `input` includes
   * cache reads and writes in every format. Default 10 input, 5 output; `"none"` reports none.
   */
  usage?: { input?: number; output?: number; cached?: number; reasoning?: number; cacheWrite?: number } | "none";
  chunk?: number;
  trailingEmptyArgs?: boolean;
  cutAfterEvents?: number;
  delayMs?: number;
  /** Answer with a closed connection (a network failure) instead of a response. */
  network?: "close";
  error?: { status: number; message: string; retryAfter?: string };
  /** End as cut by the output-token limit (Chat `length`, Responses `max_output_tokens`, Anthropic `max_tokens`). */
  finishReason?: "length";
  /** Close the stream cleanly without the format's finish events. */
  noFinish?: boolean;
  /** Send a chunk that is not JSON after this many events. */
  malformedAfterEvents?: number;
  /** That chunk's text (default an unterminated JSON object): a provider's parse error quotes it. */
  malformedText?: string;
  /** Fail the body (a connection reset) after this many events. */
  resetAfterEvents?: number;
  /**
   * After `afterEvents` events send only SSE keep-alive comments, every `keepAliveMs`, until the
   * client goes away or `forMs` (default 30 s) has passed. Inside workerd the fake never learns
   * that the client went away: a test whose client gives up sooner bounds the stall, so no stream
   * is still open when the runtime closes.
   */
  stall?: { afterEvents: number; keepAliveMs: number; forMs?: number };
  /** Stop after `afterEvents` events until {@link releaseFake} of the key, then go on. */
  hold?: { afterEvents: number };
}

/** Queues steps for an API key. */
export async function scriptFake(key: string, steps: FakeStep[]): Promise<void> {
  const res = await fetch("http://fake-provider.test/__fake/script", { method: "POST", body: JSON.stringify({ key, steps }) });
  if (!res.ok) throw new Error(`fake script failed: ${res.status}`);
}

/** Lets the key's streams held by `hold` go on; resolves with how many there were. */
export async function releaseFake(key: string): Promise<number> {
  const res = await fetch("http://fake-provider.test/__fake/release", { method: "POST", body: JSON.stringify({ key }) });
  if (!res.ok) throw new Error(`fake release failed: ${res.status}`);
  return ((await res.json()) as { released: number }).released;
}

/** The request bodies the fake received for a key. */
export async function fakeRequests(key: string): Promise<Array<{ path: string; body: any }>> {
  return (await fetch(`http://fake-provider.test/__fake/requests?key=${encodeURIComponent(key)}`)).json();
}

/** A unique key per test, so scripts never cross. */
export function fakeKey(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Thread env pointing `provider` at the fake with `key`. */
export function fakeEnv(spec: string, key: string): Record<string, { value: string; type: "text" | "secret" }> {
  const provider = spec.split(":")[0]!;
  const names: Record<string, [string, string]> = {
    openai: ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
    "openai-chat": ["OPENAI_API_KEY", "OPENAI_BASE_URL"],
    anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"],
    "openai-compatible": ["OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"],
  };
  const [keyEnv, urlEnv] = names[provider]!;
  return {
    WEFT_MODEL: { value: spec, type: "text" },
    [keyEnv]: { value: key, type: "secret" },
    [urlEnv]: { value: FAKE_BASE, type: "text" },
  };
}

/** A request the test worker sent out, as the fake received it. */
export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Every outbound request (any host, any path) whose URL, headers or body contain `needle`. */
export async function outboundContaining(needle: string): Promise<OutboundRequest[]> {
  return (await fetch(`http://fake-provider.test/__fake/outbound?needle=${encodeURIComponent(needle)}`)).json();
}
