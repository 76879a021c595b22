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
  /** The sockets of the burst being queued, read at its first frame; null between bursts. */
  private targets: WebSocket[] | null = null;

  constructor(private readonly sockets: () => WebSocket[]) {}

  /**
   * Queues one frame; the first of a burst reads the socket list and schedules the send. With no
   * socket open the frame is not even serialized: a client that connects later replays the log.
   */
  send(frame: EventFrame): void {
    if (this.targets === null) {
      this.targets = this.sockets();
      queueMicrotask(() => this.flush());
    }
    if (this.targets.length > 0) this.queue.push(JSON.stringify(frame));
  }

  /**
   * Sends every queued frame now. Called before a new socket is accepted too: its replay reads
   * the stored log, so no queued frame may be left to reach it a second time.
   */
  flush(): void {
    const sockets = this.targets;
    this.targets = null;
    if (this.queue.length === 0 || sockets === null) return;
    const frames = this.queue;
    this.queue = [];
    for (const ws of sockets) {
      try {
        for (const text of frames) ws.send(text);
      } catch {
        // A socket that closed mid-send is dropped by the runtime; its client replays on reconnect.
      }
    }
  }
}
