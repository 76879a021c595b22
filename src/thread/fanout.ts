/**
 * Fan-out of event frames to a thread's WebSockets. Frames stored in one turn of the event loop
 * (a burst of `state.emit`, a tool call's events) are sent together at its end: the socket list
 * is read once per burst instead of once per frame. Each frame is still its own WebSocket
 * message, in seq order on every socket.
 * @module
 */
import type { EventFrame } from "../protocol.js";

/** Queues frames and sends them to every socket once the current synchronous work is done. */
export class Fanout {
  private queue: string[] = [];

  constructor(private readonly sockets: () => WebSocket[]) {}

  /** Queues one frame; the first of a burst schedules the send. */
  send(frame: EventFrame): void {
    if (this.queue.push(JSON.stringify(frame)) === 1) queueMicrotask(() => this.flush());
  }

  /**
   * Sends every queued frame now. Called before a new socket is accepted too: its replay reads
   * the stored log, so no queued frame may be left to reach it a second time.
   */
  flush(): void {
    if (this.queue.length === 0) return;
    const frames = this.queue;
    this.queue = [];
    for (const ws of this.sockets()) {
      try {
        for (const text of frames) ws.send(text);
      } catch {
        // A socket that closed mid-send is dropped by the runtime; its client replays on reconnect.
      }
    }
  }
}
