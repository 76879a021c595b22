/**
 * The page react.node.test.ts drives in Chromium: a small chat screen built on `useThread` alone
 * (bundled with esbuild). `?thread=<id>` names the thread; weft answers at the page's own origin
 * (the test's server passes every other request and WebSocket through to it); `?token=` a token to
 * send, when that weft verifies tokens. For the test it
 * keeps every frame's `seq` the hook delivered (`window.__seqs`) and each render that showed
 * streaming text (`window.__renders`). `?auto=1` answers client tool calls with `onClientCall`
 * (`{ name: "auto-<prompt>", bytes: 7 }`), counting them in `window.__autoAnswered`.
 */
import { StrictMode, createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";
import { useThread } from "../../src/react/index.ts";

declare global {
  interface Window {
    __seqs: number[];
    __renders: { streaming: string; assistant: number; status: string }[];
    __autoAnswered: string[];
  }
}
window.__seqs = [];
window.__renders = [];
window.__autoAnswered = [];
/** `?auto=1`: client tool calls are answered by `onClientCall`. */
const auto = new URLSearchParams(location.search).get("auto") === "1";
const threadId = new URLSearchParams(location.search).get("thread");
/** `?token=`: the token to act with, against a weft that verifies tokens. */
const token = new URLSearchParams(location.search).get("token");

function App() {
  const thread = useThread({
    url: location.origin,
    ...(token ? { token } : {}),
    threadId,
    onEvent: (frame) => window.__seqs.push(frame.seq),
    reconnect: { minReconnectionDelay: 50, maxReconnectionDelay: 400, minUptime: 100 },
    ...(auto
      ? {
          onClientCall: (call) => {
            window.__autoAnswered.push(call.callId);
            return { result: { name: `auto-${(call.input as { prompt: string }).prompt}`, bytes: 7 } };
          },
        }
      : {}),
  });
  const [content, setContent] = useState("");
  const [script, setScript] = useState("");
  const [reason, setReason] = useState("");
  const [image, setImage] = useState("");
  const assistant = thread.messages.filter((m) => m.role === "assistant").length;
  if (thread.streamingText) window.__renders.push({ streaming: thread.streamingText, assistant, status: thread.status });
  const { connection } = thread;

  return h(
    "main",
    null,
    h("p", { id: "status" }, thread.status),
    h("p", { id: "connection", "data-state": connection.state, "data-connections": connection.connections, "data-last-seq": connection.lastSeq }, `${connection.state} #${connection.connections} at ${connection.lastSeq}`),
    h("p", { id: "last-turn" }, thread.lastTurn?.status ?? ""),
    h("p", { id: "emitted" }, JSON.stringify(thread.emitted)),
    h("p", { id: "error" }, thread.error ? `${thread.error.code}: ${thread.error.message}` : ""),
    h(
      "ol",
      { id: "messages" },
      thread.messages.map((m) => h("li", { key: m.id, className: "msg", "data-id": m.id, "data-role": m.role, "data-parts": m.parts?.map((p) => p.type).join(",") ?? "" }, m.content)),
    ),
    h("p", { id: "streaming" }, thread.streamingText),
    h(
      "ul",
      { id: "calls" },
      thread.calls.map((c) =>
        h(
          "li",
          { key: c.callId, className: "call", "data-call": c.callId, "data-status": c.status },
          `${c.toolName} ${c.status} ${c.result ?? c.error ?? ""}`,
          c.approve && h("button", { onClick: () => void c.approve!() }, `Approve ${c.toolName}`),
          c.deny && h("button", { onClick: () => void c.deny!(reason) }, `Deny ${c.toolName}`),
        ),
      ),
    ),
    h("input", { id: "reason", "aria-label": "Reason", value: reason, onChange: (e: any) => setReason(e.target.value) }),
    h("input", { id: "content", "aria-label": "Message", value: content, onChange: (e: any) => setContent(e.target.value) }),
    h("textarea", { id: "script", "aria-label": "Script", value: script, onChange: (e: any) => setScript(e.target.value) }),
    h("input", { id: "image", "aria-label": "Image URL", value: image, onChange: (e: any) => setImage(e.target.value) }),
    h(
      "button",
      {
        onClick: () =>
          void thread.send(image ? [{ type: "text", text: content }, { type: "image", image }] : content, script ? { script: JSON.parse(script) } : {}),
      },
      "Send",
    ),
    h("button", { onClick: () => void thread.stop() }, "Stop"),
    h("button", { onClick: () => void thread.callTool("emit_burst", { count: 1, bytes: 3, char: "y" }) }, "Tick"),
  );
}

createRoot(document.getElementById("root")!).render(h(StrictMode, null, h(App)));
