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

/** What this object knows of one socket's connection. */
interface Spent {
  /** Characters sent on it, at least (Infinity once closed for its budget). */
  sent: number;
  /** The count its attachment holds: never below what was sent, hibernation included. */
  kept: number;
}

/**
 * Counts the characters sent to each socket and closes one that spent its budget. The count kept
 * with a socket is an upper bound, written ahead: a step past what was sent, whenever the sends
 * pass it. A woken object goes on from it, so an eviction between two writes cannot forget what
 * was sent (an exact count kept only every step would, and bursts under a step with the object
 * evicted between them would never close the socket); each wake costs at most a step, and an
 * honest client reconnects a little early.
 */
export class SendBudget {
  private readonly spent = new WeakMap<WebSocket, Spent>();
  /** How far ahead of the sends the kept count is written, so it is written about every this many characters. */
  private readonly step: number;

  /** @param limit characters per connection (`WEFT_MAX_WS_CHARS_PER_CONNECTION`) */
  constructor(readonly limit: number) {
    this.step = Math.max(1, Math.floor(limit / 16));
  }

  /**
   * Sends a burst's messages to each of `sockets` in order, message by message: every socket gets
   * the first before any gets the second (as a baseline sending each event as it is stored does;
   * about 3% less CPU per delivered frame than a socket at a time, measured side by side). A
   * connection that reaches its limit is sent nothing more and closed naming the seq of the last
   * frame it was sent. `seqs` are the burst's frames' seqs; `ends[i]` is one past the index of
   * message `i`'s last frame (null: one frame a message). A socket that closed under us is sent
   * nothing more.
   */
  sendAll(sockets: readonly WebSocket[], messages: readonly string[], ends: readonly number[] | null, seqs: readonly number[]): void {
    const spent = sockets.map((ws) => this.of(ws));
    // Spent before this burst (a replay that ended at the newest frame, right at the limit).
    for (let k = 0; k < sockets.length; k++) if (spent[k]!.sent >= this.limit) this.close(sockets[k]!, spent[k]!, seqs[0]! - 1);
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      for (let k = 0; k < sockets.length; k++) {
        const s = spent[k]!;
        if (s.sent === Infinity) continue;
        const ws = sockets[k]!;
        try {
          ws.send(message);
        } catch {
          // Closed under us: the runtime drops it, and its client replays on reconnect.
          s.sent = Infinity;
          continue;
        }
        s.sent += message.length;
        if (s.sent >= this.limit) this.close(ws, s, seqs[(ends ? ends[i]! : i + 1) - 1]!);
      }
    }
    sockets.forEach((ws, k) => {
      const s = spent[k]!;
      if (s.sent === Infinity || s.sent <= s.kept) return;
      s.kept = Math.min(s.sent + this.step, this.limit);
      keep(ws, s.kept);
    });
  }

  private of(ws: WebSocket): Spent {
    let spent = this.spent.get(ws);
    if (spent === undefined) {
      // First seen by this instance: the replay's count, or the bound kept before hibernation.
      const kept = (ws.deserializeAttachment() as SocketAttachment | null)?.sent ?? 0;
      spent = { sent: kept, kept };
      this.spent.set(ws, spent);
    }
    return spent;
  }

  /** Closes `ws` for its budget, once (quietly: a socket that closed under us is the runtime's). */
  private close(ws: WebSocket, spent: Spent, lastSent: number): void {
    if (spent.sent === Infinity) return;
    spent.sent = Infinity;
    closeToContinue(ws, lastSent);
  }
}

/** Keeps `sent` with the socket, beside what else it keeps (its token's expiry, its message window). */
function keep(ws: WebSocket, sent: number): void {
  const kept = (ws.deserializeAttachment() as SocketAttachment | null) ?? {};
  ws.serializeAttachment({ ...kept, sent } satisfies SocketAttachment);
}
