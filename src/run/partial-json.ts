/**
 * Incremental parsing of streamed tool arguments. A `JsonArgumentStream` reads the argument text
 * once, chunk by chunk, and knows which top-level members of the object have finished streaming;
 * its preview is the object so far. A preview never breaks on a chunk cut inside a `\u` escape or
 * between the two halves of a surrogate pair: the unfinished tail is left out until it completes.
 * @module
 */

/** A top-level member whose value finished streaming, with the value's raw JSON text. */
export interface CompletedMember {
  key: string;
  raw: string;
}

type Phase = "start" | "key" | "colon" | "value" | "after" | "done" | "invalid";

/** Reads the text of a JSON object as it streams. */
export class JsonArgumentStream {
  private text = "";
  private pos = 0;
  private phase: Phase = "start";
  private depth = 0;
  private inString = false;
  private escaped = false;
  private keyStart = -1;
  private key = "";
  private valueStart = -1;
  private scalar = false;
  private readonly completed: CompletedMember[] = [];

  /** Feeds the next chunk; returns the members that finished with it, in order. */
  push(chunk: string): CompletedMember[] {
    this.text += chunk;
    const before = this.completed.length;
    while (this.pos < this.text.length && this.phase !== "done" && this.phase !== "invalid") this.step(this.text[this.pos]!, this.pos++);
    return this.completed.slice(before);
  }

  /** The argument text so far. */
  get raw(): string {
    return this.text;
  }

  /**
   * The object so far: every finished member, plus (unless `partial` is false) the member still
   * streaming when it is a string (cut back to whole characters). Undefined until the text starts
   * an object.
   */
  preview(partial = true): Record<string, unknown> | undefined {
    if (this.phase === "start" || this.phase === "invalid") return undefined;
    const out: Record<string, unknown> = {};
    for (const m of this.completed) out[m.key] = JSON.parse(m.raw);
    if (partial && this.phase === "value" && this.depth === 1 && this.inString && this.valueStart >= 0) {
      const partial = safeStringPrefix(this.text.slice(this.valueStart + 1));
      if (partial !== undefined) out[this.key] = partial;
    }
    return out;
  }

  private step(c: string, i: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === "\\") this.escaped = true;
      else if (c === '"') {
        this.inString = false;
        if (this.phase === "key" && this.depth === 1) {
          this.key = JSON.parse(this.text.slice(this.keyStart, i + 1)) as string;
          this.phase = "colon";
        } else if (this.phase === "value" && this.depth === 1) this.finish(i + 1);
      }
      return;
    }
    if (/\s/.test(c)) {
      if (this.scalar && this.depth === 1) this.finish(i);
      return;
    }
    switch (this.phase) {
      case "start":
        this.phase = c === "{" ? "key" : "invalid";
        this.depth = 1;
        return;
      case "key":
        if (c === "}") this.phase = "done";
        else if (c === '"') {
          this.inString = true;
          this.keyStart = i;
        } else this.phase = "invalid";
        return;
      case "colon":
        this.phase = c === ":" ? "value" : "invalid";
        this.valueStart = -1;
        return;
      case "after":
        if (c === ",") this.phase = "key";
        else this.phase = c === "}" ? "done" : "invalid";
        return;
      case "value":
        this.valueChar(c, i);
        return;
    }
  }

  private valueChar(c: string, i: number): void {
    if (this.valueStart < 0) this.valueStart = i;
    if (this.scalar && (c === "," || c === "}")) {
      this.finish(i);
      this.step(c, i);
      return;
    }
    if (c === '"') this.inString = true;
    else if (c === "{" || c === "[") this.depth += 1;
    else if (c === "}" || c === "]") {
      this.depth -= 1;
      if (this.depth === 1) this.finish(i + 1);
    } else if (this.depth === 1 && this.valueStart === i) this.scalar = true;
  }

  private finish(end: number): void {
    const raw = this.text.slice(this.valueStart, end);
    this.scalar = false;
    this.valueStart = -1;
    try {
      JSON.parse(raw);
      this.completed.push({ key: this.key, raw });
      this.phase = "after";
    } catch {
      this.phase = "invalid";
    }
  }
}

/**
 * Decodes the raw content of a string that is still streaming (no closing quote yet), leaving out
 * an unfinished escape at the end and a high surrogate whose low half has not arrived.
 */
export function safeStringPrefix(content: string): string | undefined {
  let cut = content.length;
  // An unfinished escape: a trailing backslash, or \u with fewer than four hex digits.
  const tail = /\\(u[0-9a-fA-F]{0,3})?$/.exec(content);
  if (tail && !isEscapedBackslash(content, tail.index)) cut = tail.index;
  let text = content.slice(0, cut);
  // A \uD800-\uDBFF escape at the end waits for its low half.
  if (/\\u[dD][89abAB][0-9a-fA-F]{2}$/.test(text) && !isEscapedBackslash(text, text.length - 6)) text = text.slice(0, -6);
  let value: string;
  try {
    value = JSON.parse(`"${text}"`) as string;
  } catch {
    return undefined;
  }
  const last = value.charCodeAt(value.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? value.slice(0, -1) : value;
}

/** Whether the backslash at `at` is itself escaped (preceded by an odd run of backslashes). */
function isEscapedBackslash(text: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= 0 && text[i] === "\\"; i--) n++;
  return n % 2 === 1;
}
