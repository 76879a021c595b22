/**
 * What one WebSocket connection may be sent. workerd queues every `send()` in memory outside the
 * JS heap until the client reads it, without limit, and shows the Worker neither the queue nor a
 * `bufferedAmount`: a subscriber that never reads would grow the process for as long as the thread
 * emits. So each connection gets a budget of characters, its replay included; once spent, the
 * socket is closed 1013 and the client's reconnect (`since` its last frame) replays the rest. A
 * client that never reads then holds at most about one budget in that queue.
 * @module
 */
import { closeToContinue, type SocketAttachment } from "./socket-policy.js";

/** Counts the characters sent to each socket and closes one that spent its budget. */
export class SendBudget {
  /** Characters sent per socket; Infinity once closed for its budget. */
  private readonly sent = new WeakMap<WebSocket, number>();
  /** The count is kept with the socket every this many characters, so a woken object goes on from it. */
  private readonly step: number;

  /** @param limit characters per connection (`WEFT_MAX_WS_CHARS_PER_CONNECTION`) */
  constructor(readonly limit: number) {
    this.step = Math.max(1, Math.floor(limit / 16));
  }

  /**
   * Sends a burst's messages to `ws` in order while its connection is under the limit: the message
   * that reaches it is the last, and the socket is closed naming the seq of the last frame sent.
   * `seqs` are the burst's frames' seqs; `ends[i]` is one past the index of message `i`'s last
   * frame (null: one frame a message). A socket that closed under us is sent nothing more.
   */
  send(ws: WebSocket, messages: readonly string[], ends: readonly number[] | null, seqs: readonly number[]): void {
    try {
      let sent = this.count(ws);
      if (sent === Infinity) return;
      // Spent before this burst (a replay that ended at the newest frame, right at the limit).
      if (sent >= this.limit) return this.close(ws, seqs[0]! - 1);
      const start = sent;
      for (let i = 0; i < messages.length; i++) {
        ws.send(messages[i]!);
        sent += messages[i]!.length;
        if (sent >= this.limit) return this.close(ws, seqs[(ends ? ends[i]! : i + 1) - 1]!);
      }
      this.sent.set(ws, sent);
      if (Math.floor(sent / this.step) !== Math.floor(start / this.step)) keep(ws, sent);
    } catch {
      // Closed under us: the runtime drops it, and its client replays on reconnect.
      this.sent.set(ws, Infinity);
    }
  }

  private count(ws: WebSocket): number {
    let sent = this.sent.get(ws);
    if (sent === undefined) {
      // First seen by this instance: the replay's count, or the last kept before hibernation.
      sent = (ws.deserializeAttachment() as SocketAttachment | null)?.sent ?? 0;
      this.sent.set(ws, sent);
    }
    return sent;
  }

  private close(ws: WebSocket, lastSent: number): void {
    this.sent.set(ws, Infinity);
    closeToContinue(ws, lastSent);
  }
}

/** Keeps `sent` with the socket, beside what else it keeps (its token's expiry, its message window). */
function keep(ws: WebSocket, sent: number): void {
  const kept = (ws.deserializeAttachment() as SocketAttachment | null) ?? {};
  ws.serializeAttachment({ ...kept, sent } satisfies SocketAttachment);
}
