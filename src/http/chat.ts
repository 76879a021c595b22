/**
 * `POST /threads/:id/chat`: a turn of the thread streamed in the AI SDK's UI message stream
 * protocol, so `useChat` (with `DefaultChatTransport` pointed here) can use a weft thread as its
 * backend. From the request body only two things count: the text of a new last user message, or
 * the approval decisions and client tool outputs (`addToolResult`) on the last assistant message.
 * Each goes through weft (post a message; approve, deny, or answer a client tool's call, recorded
 * as the verified caller); the rest of the client's history is ignored, since the thread holds
 * the conversation.
 * @module
 */
import { createUIMessageStream, createUIMessageStreamResponse } from "ai";
import { Hono } from "hono";
import { z } from "zod";
import { toUIMessages } from "../chat/ui-messages.js";
import { parseApprovalId, UiChunkTranslator } from "../chat/ui-stream.js";
import { type ErrorBody, WeftError } from "../errors.js";
import { MAX_CHAT_ANSWERS, PAGE_SIZES, limitOf } from "../limits.js";
import { type CallRecord, type EventFrame, FINAL_CALL_STATUSES, type Message } from "../protocol.js";
import { type Caller, unwrap } from "../rpc.js";
import type { ClientAnswer } from "../protocol.js";
import { CALLER_HEADER, type ThreadApi } from "../thread/api.js";
import { checkContentSize } from "../thread/store/messages.js";
import type { AuthedEnv } from "./auth.js";
import { describe, ok, refused } from "./openapi.js";
import * as R from "./responses.js";
import { threadStub } from "./stubs.js";
import { jsonBody } from "./validate.js";

/** How many stored messages `GET /threads/:id/chat` turns into UI messages (the newest): one full page. */
export const CHAT_HISTORY_LIMIT = PAGE_SIZES.messages.max;

const Part = z.looseObject({ type: z.string() });
/** What `useChat` sends (`DefaultChatTransport`): `{ id, messages, trigger, messageId }` plus any `body` extras. */
export const ChatBody = z.looseObject({
  messages: z.array(z.looseObject({ id: z.string().optional(), role: z.enum(["user", "assistant", "system"]), parts: z.array(Part) })).min(1),
  trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
  /** A scripted model's steps for the turn (as `POST /threads/:id/messages` takes them). */
  script: z.array(z.unknown()).optional(),
});
type ChatBody = z.output<typeof ChatBody>;

/** One approval decision read from the client's last assistant message. */
interface Decision {
  callId: string;
  argsHash: string;
  approved: boolean;
  reason?: string;
  /** Where the body carried it: `approval_mismatch` names it. */
  path: (string | number)[];
}

/** A client tool's output (`addToolResult`) read from the last step of the client's last assistant message. */
interface ToolOutput {
  callId: string;
  answer: ClientAnswer;
}

/**
 * The outputs the client gave in the last step of its assistant message: every tool part with
 * an output or an error the client did not get from the provider. Parts of calls weft ran carry
 * their results too; answering one is refused (`call_not_waiting`) and skipped, so only a client
 * tool's waiting call takes its answer.
 */
function outputsOf(parts: z.output<typeof Part>[]): ToolOutput[] {
  const step = parts.slice(parts.findLastIndex((p) => p.type === "step-start") + 1);
  return step.flatMap((p): ToolOutput[] => {
    if (!(p.type.startsWith("tool-") || p.type === "dynamic-tool") || typeof p.toolCallId !== "string" || p.providerExecuted === true) return [];
    if (p.state === "output-available") return [{ callId: p.toolCallId, answer: { result: p.output ?? null } }];
    if (p.state === "output-error") return [{ callId: p.toolCallId, answer: { error: typeof p.errorText === "string" && p.errorText !== "" ? p.errorText : "the client's tool failed" } }];
    return [];
  });
}

/** The action a chat request asks for; throws `invalid_request` naming the path when it asks for none. */
function actionOf(body: ChatBody): { content: string } | { decisions: Decision[]; outputs: ToolOutput[] } {
  if (body.trigger === "regenerate-message") {
    throw new WeftError("invalid_request", "trigger: regenerating a message is not supported; a weft thread keeps its history", { path: ["trigger"] });
  }
  const i = body.messages.length - 1;
  const last = body.messages[i]!;
  if (last.role === "user") {
    const content = last.parts.flatMap((p) => (p.type === "text" && typeof p.text === "string" ? [p.text] : [])).join("\n");
    if (content === "") throw new WeftError("invalid_request", `messages.${i}.parts: expected a text part`, { path: ["messages", i, "parts"] });
    return { content };
  }
  const decisions: Decision[] = [];
  last.parts.forEach((p, j) => {
    const approval = p.approval as { id?: unknown; approved?: unknown; reason?: unknown } | undefined;
    if (p.state !== "approval-responded" || !approval) return;
    const path = ["messages", i, "parts", j, "approval", "id"];
    const ids = typeof approval.id === "string" ? parseApprovalId(approval.id) : null;
    if (!ids) throw new WeftError("invalid_request", `${path.join(".")}: not an approval weft asked for`, { path });
    // A decision is given, never guessed: anything but true or false would otherwise deny for good.
    if (typeof approval.approved !== "boolean") {
      const at = ["messages", i, "parts", j, "approval", "approved"];
      throw new WeftError("invalid_request", `${at.join(".")}: expected true or false`, { path: at });
    }
    decisions.push({ ...ids, approved: approval.approved, path, ...(typeof approval.reason === "string" ? { reason: approval.reason } : {}) });
  });
  const outputs = outputsOf(last.parts);
  // Each answer costs the thread one or two calls: a body of thousands is refused before any.
  if (decisions.length + outputs.length > MAX_CHAT_ANSWERS) {
    const path = ["messages", i, "parts"];
    throw new WeftError("invalid_request", `${path.join(".")}: ${decisions.length + outputs.length} approval decisions and tool outputs, over the ${MAX_CHAT_ANSWERS} one request may carry`, { path, limit: MAX_CHAT_ANSWERS });
  }
  if (decisions.length === 0 && outputs.length === 0) {
    throw new WeftError("invalid_request", `messages.${i}: expected a user message, or an assistant message with approval responses or tool outputs`, { path: ["messages", i] });
  }
  return { decisions, outputs };
}

/** Frames of the thread after `since`, read from its WebSocket (the same feed clients get). */
async function eventFeed(stub: ThreadApi, caller: Caller, threadId: string, since: number) {
  const res = await stub.fetch(new Request(`https://thread/threads/${threadId}/ws?since=${since}`, { headers: { upgrade: "websocket", [CALLER_HEADER]: JSON.stringify(caller) } }));
  const socket = res.webSocket;
  if (!socket) {
    // The thread's own refusal (a token that expired since the Worker verified it: 401) is the answer.
    const refusal = (await res.json().catch(() => null)) as ErrorBody | null;
    if (refusal?.error) throw new WeftError(refusal.error.code, refusal.error.message, refusal.error.details);
    throw new WeftError("internal_error", `the thread refused its event feed (${res.status})`);
  }
  socket.accept();
  const queue: EventFrame[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  socket.addEventListener("message", (e) => {
    queue.push(JSON.parse(String(e.data)) as EventFrame);
    wake?.();
  });
  socket.addEventListener("close", () => {
    closed = true;
    wake?.();
  });
  return {
    async next(): Promise<EventFrame | null> {
      while (queue.length === 0 && !closed) await new Promise<void>((r) => (wake = r));
      wake = null;
      return queue.shift() ?? null;
    },
    close: () => socket.close(1000, "done"),
  };
}

/**
 * The calls `messages` (newest first) name, newest first, in one page of calls. Past its bytes,
 * the messages from the newest one naming a call left unread are dropped (`cut`), so a tool part
 * shows its call's outcome; only the newest message is always kept (its unread calls then show
 * as running: one step's calls over a page's bytes).
 */
async function callsOfPage(stub: ThreadApi, caller: Caller, messages: Message[]): Promise<{ messages: Message[]; calls: CallRecord[]; cut: boolean }> {
  const ids = [...new Set(messages.flatMap((m) => (m.toolCalls ?? []).map((call) => call.id)))];
  if (ids.length === 0) return { messages, calls: [], cut: false };
  const { calls, hasMore } = unwrap(await stub.listCalls(caller, { ids }));
  if (!hasMore) return { messages, calls, cut: false };
  const last = calls.at(-1);
  const unread = new Set(last ? ids.slice(ids.indexOf(last.callId) + 1) : ids);
  const first = messages.findIndex((m) => m.toolCalls?.some((call) => unread.has(call.id)));
  return { messages: messages.slice(0, Math.max(first, 1)), calls, cut: true };
}

/** The `/threads/:id/chat` route. */
export function chatRoutes() {
  const app = new Hono<AuthedEnv>();

  // The conversation so far as UI messages (useChat's `messages`), newest `CHAT_HISTORY_LIMIT` stored messages.
  app.get("/:id/chat", describe("The conversation so far as AI SDK UI messages (useChat's messages)", { 200: ok("The UI messages, oldest first", R.ChatHistory), ...refused(404) }), async (c) => {
    const stub = threadStub(c.env, c.req.param("id"));
    const page = unwrap(await stub.getMessages(c.var.caller, { limit: CHAT_HISTORY_LIMIT, order: "desc", maxDepth: 0 }));
    const { messages, calls, cut } = await callsOfPage(stub, c.var.caller, page.messages);
    return c.json({ messages: toUIMessages(messages.reverse(), calls), hasMore: page.hasMore || cut });
  });

  app.post("/:id/chat", describe("Stream a turn in the AI SDK's UI message stream protocol (useChat)", { 200: { description: "A UI message stream (server-sent events)", media: ["text/event-stream"] }, ...refused(400, 404, 413, 415) }), jsonBody(ChatBody), async (c) => {
    const threadId = c.req.param("id");
    const caller = c.var.caller;
    const stub = threadStub(c.env, threadId);
    const body = c.req.valid("json");
    const action = actionOf(body);
    // The deployment's message limit, as POST /threads/:id/messages applies it, before anything is written.
    if ("content" in action) checkContentSize(action.content, ["messages", body.messages.length - 1, "parts"], limitOf(c.env, "messageBytes"), "WEFT_MAX_MESSAGE_BYTES");
    const info = unwrap(await stub.info(caller));
    // Subscribed before acting, from the last frame before it: nothing of this turn is missed.
    const feed = await eventFeed(stub, caller, threadId, info.lastSeq);
    let idle = false;
    const earlier: CallRecord[] = [];
    /** Every answer this request carried was refused: each call was stopped, answered before, or weft's. */
    let refused = false;
    try {
      if ("content" in action) {
        const posted = unwrap(await stub.postMessage(caller, { content: action.content, ...(body.script ? { script: body.script } : {}) }));
        // Queued behind a turn that waits for a person: no turn starts until someone decides.
        idle = posted.queued && info.status === "waiting";
      } else {
        let follow = false;
        for (const d of action.decisions) {
          // Either decision holds to the arguments its approval id names (approval_mismatch otherwise).
          const decided = d.approved ? await stub.approve(caller, d.callId, d.argsHash) : await stub.deny(caller, d.callId, d.reason, undefined, d.argsHash);
          if (decided.ok && !decided.value.repeated) {
            follow = true;
            continue;
          }
          if (!decided.ok && decided.error.code === "approval_mismatch") {
            throw new WeftError("approval_mismatch", `${d.path.join(".")}: names other arguments than this call holds`, { ...decided.error.details, path: d.path });
          }
          if (!decided.ok && decided.error.code !== "call_not_waiting") unwrap(decided);
          // Decided already (a resent history, another tab, a repeat of this one): weft's decision
          // stands. A finished call's outcome is shown at once; one still running is followed to its result.
          const call = unwrap(await stub.getCall(caller, d.callId));
          if (FINAL_CALL_STATUSES.includes(call.status)) earlier.push(call);
          else follow = true;
        }
        // Not waiting for an answer: a call weft ran (its part came back with the client's), or one answered or stopped before.
        const notWaiting: string[] = [];
        for (const o of action.outputs) {
          const answered = await stub.settle(caller, o.callId, { outcome: "answered", answer: o.answer });
          if (answered.ok) follow = true;
          else if (answered.error.code !== "call_not_waiting") unwrap(answered);
          else notWaiting.push(o.callId);
        }
        // Only when no answer was taken do those calls end the stream: shown as recorded, then a step of its own (finishNow).
        if (!follow && notWaiting.length > 0) {
          refused = true;
          for (const callId of notWaiting) {
            const call = unwrap(await stub.getCall(caller, callId));
            if (FINAL_CALL_STATUSES.includes(call.status)) earlier.push(call);
          }
        }
        // Nothing this request decided moves a turn: its stream ends now, never carrying a later turn.
        idle = !follow;
      }
    } catch (err) {
      feed.close();
      throw err;
    }
    const translator = new UiChunkTranslator("decisions" in action ? [...action.decisions, ...action.outputs].map((d) => d.callId) : []);
    // After a decision the turn goes on in the assistant message that asked: the stream names its
    // id (only the id is read from the client's copy), so the client continues that message.
    const asked = body.messages.at(-1)!;
    const stream = createUIMessageStream({
      ...("decisions" in action && asked.id ? { originalMessages: [{ id: asked.id, role: "assistant" as const, parts: [] }] } : {}),
      async execute({ writer }) {
        try {
          for (const chunk of translator.start()) writer.write(chunk);
          for (const call of earlier) for (const chunk of translator.decidedBefore(call)) writer.write(chunk);
          if (idle) for (const chunk of translator.finishNow(refused)) writer.write(chunk);
          while (!translator.done) {
            const frame = await feed.next();
            if (!frame) break;
            for (const chunk of translator.push(frame)) writer.write(chunk);
          }
        } finally {
          feed.close();
        }
      },
      onError: (e) => (e instanceof Error ? e.message : "stream failed"),
    });
    return createUIMessageStreamResponse({ stream });
  });
  return app;
}
