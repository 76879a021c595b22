/**
 * A client tool through `POST /threads/:id/chat` and the AI SDK's own chat client: `onToolCall`
 * sees the model's call, `addToolOutput` answers it, `sendAutomaticallyWhen` sends the answer
 * back, and weft records it once and goes on with the turn in the same assistant message.
 */
import { AbstractChat, DefaultChatTransport, type UIMessage, lastAssistantMessageIsCompleteWithToolCalls } from "ai";
import { expect, it } from "vitest";
import { PlainState } from "./plain-state.js";
import { callsOf, createThread, json, messagesOf, request, until } from "../helpers.js";

/** A chat whose `onToolCall` answers `pick_file` as a browser would (with `answer`), and sends the answer back by itself. */
class BrowserChat extends AbstractChat<UIMessage> {
  readonly asked: string[] = [];
  constructor(threadId: string, answer: (input: unknown) => { output: unknown } | { errorText: string }) {
    super({
      state: new PlainState(),
      transport: new DefaultChatTransport({ api: `http://weft.test/threads/${threadId}/chat`, fetch: (url, init) => request(new URL(String(url)).pathname, init) }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall: ({ toolCall }) => {
        if (toolCall.toolName !== "pick_file") return;
        this.asked.push(toolCall.toolCallId);
        const given = answer(toolCall.input);
        void this.addToolOutput("output" in given ? { tool: "pick_file", toolCallId: toolCall.toolCallId, output: given.output } : { tool: "pick_file", toolCallId: toolCall.toolCallId, state: "output-error", errorText: given.errorText });
      },
    });
  }
}

const script = [{ text: "Let me ask.", toolCalls: [{ id: "pick", name: "pick_file", arguments: { prompt: "Pick the report" } }] }, { text: "Got your file." }];

it("onToolCall answers a client tool's call with addToolOutput; weft records it once and the turn goes on", async () => {
  const id = await createThread({ agent: "browser" });
  const chat = new BrowserChat(id, () => ({ output: { name: "report.pdf", bytes: 1200 } }));
  await chat.sendMessage({ text: "attach my report" }, { body: { script } });
  await until(async () => chat.status !== "streaming" && chat.status !== "submitted" && (await json("GET", `/threads/${id}`)).body.status === "idle", "the answered turn", 10_000);
  expect(chat.error).toBeUndefined();
  expect(chat.asked).toEqual(["pick"]);
  expect((await callsOf(id)).map((c) => [c.callId, c.status, c.decidedBy])).toEqual([["pick", "succeeded", "tester"]]);
  expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  const parts = chat.messages[1]!.parts as any[];
  expect(parts.filter((p) => p.type === "tool-pick_file")).toEqual([expect.objectContaining({ toolCallId: "pick", state: "output-available", output: { name: "report.pdf", bytes: 1200 } })]);
  // No parked marker for the client's own call: its tool part is what it answered.
  expect(parts.some((p) => p.type === "data-weft-parked")).toBe(false);
  expect(parts.filter((p) => p.type === "text").map((p) => p.text).join("")).toBe("Let me ask.Got your file.");
  const messages = await messagesOf(id);
  expect(messages.map((m) => `${m.role}:${m.toolCallId ?? ""}`)).toEqual(["user:", "assistant:", "tool:pick", "assistant:"]);
  expect(messages[2]!.content).toBe('{"name":"report.pdf","bytes":1200}');
});

it("an output-error from the client is the error result the model sees", async () => {
  const id = await createThread({ agent: "browser" });
  const chat = new BrowserChat(id, () => ({ errorText: "the user closed the dialog" }));
  await chat.sendMessage({ text: "attach my report" }, { body: { script } });
  await until(async () => chat.status !== "streaming" && chat.status !== "submitted" && (await json("GET", `/threads/${id}`)).body.status === "idle", "the answered turn", 10_000);
  expect((await callsOf(id))[0]).toMatchObject({ status: "failed", result: { status: "error", error: "the user closed the dialog" } });
  expect((await messagesOf(id)).at(-1)!.content).toBe("Got your file.");
});

it("an answer to a call the thread stopped meanwhile does not make useChat send it again and again", async () => {
  const id = await createThread({ agent: "browser" });
  let posts = 0;
  let answer: ((toolCallId: string) => void) | null = null;
  const chat = new (class extends AbstractChat<UIMessage> {
    constructor() {
      super({
        state: new PlainState(),
        transport: new DefaultChatTransport({
          api: `http://weft.test/threads/${id}/chat`,
          fetch: (url, init) => {
            // Bounded here, so a resend loop fails the test instead of running forever.
            if (init?.method === "POST" && ++posts > 10) return Promise.reject(new Error("resent more than 10 times"));
            return request(new URL(String(url)).pathname, init);
          },
        }),
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
        // The user takes their time: the answer comes after the thread was stopped.
        onToolCall: ({ toolCall }) => {
          answer = (toolCallId) => void this.addToolOutput({ tool: "pick_file", toolCallId, output: { name: "late.pdf", bytes: 1 } });
          expect(toolCall.toolCallId).toBe("pick");
        },
      });
    }
  })();
  await chat.sendMessage({ text: "attach my report" }, { body: { script } });
  await until(async () => chat.status === "ready" && (await json("GET", `/threads/${id}`)).body.status === "waiting", "the wait for the client", 10_000);
  expect((await json("POST", `/threads/${id}/stop`, {})).body).toEqual({ stopped: true });
  answer!("pick");
  await until(async () => chat.status === "ready" || chat.status === "error", "the answer's request", 10_000);
  await new Promise((r) => setTimeout(r, 500));
  expect(chat.error).toBeUndefined();
  // The first post and the late answer: weft's stream must settle the part so that nothing is resent.
  expect(posts).toBe(2);
  expect((await callsOf(id))[0]).toMatchObject({ callId: "pick", status: "aborted" });
});
