/**
 * The newest messages of each depth, kept in memory so a model step reads its history window
 * without reading (and parsing) the same rows again: every step of a turn asks for the newest
 * messages that fit its budget, and all but the last few are the ones the step before read.
 * Messages are only ever appended, by this instance, so the tail stays exact: an append adds to
 * it, a rolled-back transaction or `deleteAll` drops it (`forget`).
 * @module
 */
import type { Message } from "../../protocol.js";

/** Most messages kept per depth; older ones are read from SQLite as before. */
const MAX_MESSAGES = 1024;
/**
 * Most characters of content and tool-call arguments kept across all depths: about 250k tokens of
 * English, a long window, at 2 MB of string memory, since many threads may share one isolate's 128 MB.
 */
const MAX_CHARS = 1024 * 1024;

/** Every message of one depth with an id above `from`, oldest first. */
interface Tail {
  messages: Message[];
  from: number;
  chars: number;
}

const charsOf = (m: Message): number => m.content.length + (m.toolCalls?.reduce((n, c) => n + c.arguments.length, 0) ?? 0);

/** Frozen, so no reader can change what the next reader gets. */
function frozen(m: Message): Message {
  if (m.toolCalls) Object.freeze(m.toolCalls.map((c) => Object.freeze(c)));
  return Object.freeze(m);
}

/** Reads up to `limit` messages of the range `floor < id < before`, newest first, from storage. */
export type ReadNewestFirst = (before: number, floor: number, limit: number) => Message[];

/** The newest messages per depth, exact for every id above each tail's `from`. */
export class MessageTail {
  private readonly tails = new Map<number, Tail>();
  private chars = 0;

  constructor(
    private readonly maxMessages = MAX_MESSAGES,
    private readonly maxChars = MAX_CHARS,
  ) {}

  /**
   * Up to `limit` messages of `depth` with `floor < id < before`, newest first: what the tail
   * holds of them, and the rest through `read` (which the tail then keeps when it can).
   */
  newestFirst(depth: number, before: number, floor: number, limit: number, read: ReadNewestFirst): Message[] {
    const held = this.held(depth, before, floor, limit);
    if (held.rest === null) return held.messages;
    const more = limit - held.messages.length;
    const rows = read(held.rest, floor, more);
    this.learn(depth, held.rest, floor, more, rows);
    return held.messages.length === 0 ? rows : held.messages.concat(rows);
  }

  /** What the tail holds of a range, newest first, and the `before` bound of the rest (null: nothing is left to read). */
  private held(depth: number, before: number, floor: number, limit: number): { messages: Message[]; rest: number | null } {
    const tail = this.tails.get(depth);
    if (!tail) return { messages: [], rest: before };
    const messages: Message[] = [];
    for (let i = tail.messages.length - 1; i >= 0 && messages.length < limit; i--) {
      const m = tail.messages[i]!;
      if (m.id <= floor) break;
      if (m.id < before) messages.push(m);
    }
    const whole = messages.length === limit || floor >= tail.from;
    return { messages, rest: whole ? null : Math.min(before, tail.from + 1) };
  }

  /**
   * Takes what SQLite answered for a range (`rows`, newest first, at most `limit`): it starts a
   * tail when the range reached the newest message, and extends one when it lies right below it.
   */
  private learn(depth: number, before: number, floor: number, limit: number, rows: Message[]): void {
    const from = rows.length < limit ? floor : rows.at(-1)!.id - 1;
    const tail = this.tails.get(depth);
    if (tail ? before !== tail.from + 1 : before !== Number.MAX_SAFE_INTEGER) return;
    const older = rows.map(frozen).reverse();
    const chars = this.count(older);
    if (tail) {
      tail.messages = older.concat(tail.messages);
      tail.from = from;
      tail.chars += chars;
    } else this.tails.set(depth, { messages: older, from, chars });
    this.trim(depth);
  }

  /** Records a message just stored (ids only grow, so it is the newest of its depth). */
  appended(message: Message): void {
    const tail = this.tails.get(message.depth ?? 0);
    // A tail learnt from a read with a floor above every id yet stored holds only ids above it.
    if (!tail || message.id <= tail.from) return;
    const m = frozen(message);
    tail.messages.push(m);
    tail.chars += this.count([m]);
    this.trim(message.depth ?? 0);
  }

  /** Drops every tail: rows changed behind it (a rollback, `deleteAll`). */
  forget(): void {
    this.tails.clear();
    this.chars = 0;
  }

  /** Characters of `messages`, added to the total kept. */
  private count(messages: Message[]): number {
    let n = 0;
    for (const m of messages) n += charsOf(m);
    this.chars += n;
    return n;
  }

  /** Drops the oldest messages of `depth` past the bounds; the tail then starts above the last one dropped. */
  private trim(depth: number): void {
    const tail = this.tails.get(depth)!;
    let drop = Math.max(0, tail.messages.length - this.maxMessages);
    let freed = 0;
    for (let i = 0; i < drop; i++) freed += charsOf(tail.messages[i]!);
    while (drop < tail.messages.length && this.chars - freed > this.maxChars) freed += charsOf(tail.messages[drop++]!);
    if (drop === 0) return;
    tail.from = tail.messages[drop - 1]!.id;
    tail.messages = tail.messages.slice(drop);
    tail.chars -= freed;
    this.chars -= freed;
  }
}
