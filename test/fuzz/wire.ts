/**
 * Judges a stored history the way the providers do: the thread's messages plus a next user
 * message go through weft's AI SDK adapter and the real provider packages (OpenAI Responses,
 * Chat Completions, Anthropic Messages); each request body they would send is caught before it
 * leaves and checked by that wire format's validator (scripts/lib/wire-validators.mjs).
 * @module
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { validateAnthropic, validateChatCompletions, validateResponses } from "../../scripts/lib/wire-validators.mjs";
import { fromLanguageModel } from "../../src/models/ai-sdk.js";
import type { Wire } from "../../src/models/history.js";
import type { ModelTool } from "../../src/models/model.js";
import type { Message } from "../../src/protocol.js";

/** Stands in for the network: keeps the body and refuses, so nothing leaves. */
class Caught extends Error {}

const formats: Array<{ name: string; wire: Wire; make: (fetch: typeof globalThis.fetch) => LanguageModel; validate: (body: unknown) => string[] }> = [
  { name: "openai responses", wire: "openai", make: (fetch) => createOpenAI({ apiKey: "k", fetch }).responses("gpt-4.1-mini"), validate: validateResponses },
  {
    name: "chat completions",
    wire: "openai",
    make: (fetch) => createOpenAICompatible({ name: "c", baseURL: "http://wire.invalid/v1", apiKey: "k", fetch }).chatModel("m"),
    validate: validateChatCompletions,
  },
  { name: "anthropic", wire: "anthropic", make: (fetch) => createAnthropic({ apiKey: "k", fetch })("claude-sonnet-4-5"), validate: validateAnthropic },
];

/**
 * Every problem a provider would refuse in the next model request of this history, as
 * `<format>: <problem>`; empty when all three accept it.
 */
export async function wireProblems(messages: readonly Message[], tools: readonly ModelTool[]): Promise<string[]> {
  const next: Message = { id: (messages.at(-1)?.id ?? 0) + 1, role: "user", content: "next", createdAt: 0 } as Message;
  const problems: string[] = [];
  for (const format of formats) {
    let body: unknown = null;
    const fetch = (async (_url: unknown, init?: RequestInit) => {
      body = JSON.parse(String(init?.body));
      throw new Caught("caught");
    }) as typeof globalThis.fetch;
    const model = fromLanguageModel(format.make(fetch), { wire: format.wire });
    try {
      for await (const _ of model.stream({ threadId: "t", turnId: "turn", step: 1, system: "fuzz", messages: [...messages, next], tools, signal: new AbortController().signal })) {
        // Never reached: the request is caught before it is sent.
      }
    } catch {
      // Expected: the caught request.
    }
    if (body === null) problems.push(`${format.name}: no request was made`);
    else problems.push(...format.validate(body).map((p) => `${format.name}: ${p}`));
  }
  return problems;
}
