/**
 * Fan-out of event frames to a thread's WebSockets. Frames stored in one turn of the event loop (a
 * burst of `state.emit`, a tool call's events) are sent together after it: the socket list is read
 * once per burst, each frame serialized once for every socket. A plain socket gets each frame as
 * its own message; one that asked for batches (`?batch=1`) gets JSON arrays of frames; seq order.
 * Each connection is sent at most its budget ({@link SendBudget}), then closed to reconnect.
 * @module
 */
import type { EventFrame } from "../protocol.js";
import { SettleWindow } from "../calls/settle-window.js";
import { packFrameRuns } from "../frame-batches.js";
import { frameText } from "../event-rows.js";
import { SendBudget } from "../send-budget.js";
import { type KnownSockets, knownSockets } from "../socket-policy.js";

/** Settle windows a burst waits at most for events the log holds (each of them is stored within one of its own). */
const HELD_WAITS = 4;

/** The tag of a socket that takes its frames as JSON arrays (`GET /threads/:id/ws?batch=1`). */
export const BATCH_TAG = "batch";

/** The sockets of a thread: all of them, and those that take batches. */
export interface SocketLists {
  all(): WebSocket[];
  batched(): WebSocket[];
  /** When the token a socket was opened with expires (epoch ms), or Infinity. */
  expiresAt(ws: WebSocket): number;
  /** Closes a socket whose token expired. */
  expire(ws: WebSocket): void;
}

/** Queues frames and sends them to every socket once the current synchronous work is done. */
export class Fanout {
  private queue: string[] = [];
  /** The seq of each queued frame. */
  private seqs: number[] = [];
  /** The sockets of the burst being queued, taken at its first frame; null between bursts. */
  private targets: KnownSockets | null = null;
  /** The socket lists as last read; null once a socket was accepted or closed since. */
  private known: KnownSockets | null = null;

  private readonly budget: SendBudget;

  /**
   * @param charsPerConnection what one connection is sent at most, its replay included ({@link SendBudget})
   * @param held whether the event log holds events it will store within its own settle window: the burst waits for them
   */
  constructor(
    private readonly sockets: SocketLists,
    charsPerConnection: number,
    private readonly held: () => boolean,
  ) {
    this.budget = new SendBudget(charsPerConnection);
  }

  /** A socket was accepted or closed: the queue goes now to the sockets it was for (a new one replayed it). */
  socketsChanged(): void {
    this.flush();
    this.known = null;
  }

  /** Windows the queue waited for held events since it was last sent (at most {@link HELD_WAITS}). */
  private waits = 0;

  /**
   * Sends the queue once frames stop coming for a few microtask turns, within the same JS run,
   * after the events the log holds are stored (a few more windows at most: one that fails to store
   * stays held, and must not keep the queue, or the microtask queue, waiting).
   */
  private readonly window = new SettleWindow(
    () => this.queue.length > 0,
    () => (this.held() && this.waits++ < HELD_WAITS ? this.window.open() : this.flush()),
  );

  /**
   * Queues one frame; the first of a burst takes the socket list. The burst is sent once no frame
   * came for `SETTLE_TURNS` microtask turns, so a tool's events and its call's finish go as one
   * batch; none leaves later for it, as the output gate holds a frame until its row commits, once
   * JS yields. With no socket open the frame is not even serialized: a client that connects later
   * replays the log.
   */
  send(frame: EventFrame): void {
    if (this.targets === null) {
      const sockets = (this.known ??= this.read());
      if (sockets.all.length === 0) return;
      this.targets = sockets;
    }
    this.queue.push(frameText(frame));
    this.seqs.push(frame.seq);
    this.window.open();
  }

  /** The socket lists with their earliest token expiry (read once per change, not per burst). */
  private read(): KnownSockets {
    return knownSockets(this.sockets.all(), new Set(this.sockets.batched()), (ws) => this.sockets.expiresAt(ws));
  }

  /** Closes the sockets whose token expired by `now`; the others go on. */
  private dropExpired(sockets: KnownSockets, now: number): KnownSockets {
    const live = sockets.all.filter((ws) => {
      if (this.sockets.expiresAt(ws) > now) return true;
      this.sockets.expire(ws);
      return false;
    });
    const kept = knownSockets(live, new Set(sockets.batched), (ws) => this.sockets.expiresAt(ws));
    if (this.known === sockets) this.known = kept;
    return kept;
  }

  /** Sends every queued frame now, to the sockets of its burst. */
  private flush(): void {
    this.waits = 0;
    let sockets = this.targets;
    this.targets = null;
    if (this.queue.length === 0 || sockets === null) return;
    // One comparison a burst: a socket whose token expired is closed before it gets another frame.
    const now = Date.now();
    if (now >= sockets.earliest) sockets = this.dropExpired(sockets, now);
    const frames = this.queue;
    const seqs = this.seqs;
    this.queue = [];
    this.seqs = [];
    if (sockets.plain.length > 0) this.budget.sendAll(sockets.plain, frames, null, seqs);
    if (sockets.batched.length === 0) return;
    const packed = packFrameRuns(frames);
    this.budget.sendAll(sockets.batched, packed.messages, packed.ends, seqs);
  }
}
