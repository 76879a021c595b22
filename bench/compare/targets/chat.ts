/**
 * The Agents SDK's chat target of bench/compare: an `AIChatAgent` (`@cloudflare/ai-chat`, which
 * the `agents` docs name for "a chat UI that owns the loop and the stream"; their other pick,
 * Think, is marked experimental) written as its docs show: `onChatMessage` runs the AI SDK's
 * `streamText` over `convertToModelMessages(this.messages)` with the three bench tools and
 * `stopWhen`, and answers `toUIMessageStreamResponse()`; the SDK persists the messages and streams
 * the chunks over the WebSocket. A client sends each turn as `useAgentChat` does. The request body
 * picks the model (`model`: scripted or the fake provider, `key`: the fake's API key for this
 * thread). The Worker checks the API key as every baseline does.
 * @module
 */
import { AIChatAgent } from "@cloudflare/ai-chat";
import { routeAgentRequest } from "agents";
import { convertToModelMessages, stepCountIs, streamText } from "ai";
import { agentsWorker } from "./lib/auth.js";
import { MAX_STEPS, TOOLS, modelFor } from "./lib/loop.js";
import { countRows, rowsRoute } from "./lib/rows.js";

interface Env {
  BenchChat: DurableObjectNamespace<BenchChat>;
  BENCH_API_KEY_SHA256: string;
}

export class BenchChat extends AIChatAgent<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    countRows(ctx);
    super(ctx, env);
  }

  override async onChatMessage(_onFinish: unknown, options?: { body?: Record<string, unknown> }): Promise<Response> {
    const body = options?.body ?? {};
    const result = streamText({
      model: modelFor(String(body.model), String(body.key)),
      messages: await convertToModelMessages(this.messages),
      tools: TOOLS,
      stopWhen: stepCountIs(MAX_STEPS),
    });
    return result.toUIMessageStreamResponse();
  }
}

export default agentsWorker(routeAgentRequest, rowsRoute);
