/**
 * The host side of one run, shared by both executors: console output and its cap, progress,
 * calls to host imports, timers, the deadline and cancellation. The first ending wins; after it
 * every capability the sandbox was handed refuses, so nothing it kept outlives the call.
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import { keptText } from "../kept-text.js";
import { DeadlineWatch } from "../deadlines.js";
import { decodeValue, encodeValue } from "./codec.js";
import type { CodeOutcome, CodeStatus, ExecutorName, SandboxRequest } from "./executor.js";
import { ISOLATE_SUBREQUESTS, MAX_RUN_TIMERS } from "./limits.js";

/** A `Name: message` line for any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** The code's own text needs no redaction here: the code holds no secret to show (what reaches it was redacted). */
const asWritten = (text: string) => text;

/** The deadlines of a scope's open runs (a thread's Durable Object), one watch per scope while any is open. */
const sweepers = new Map<string, DeadlineWatch<RunSession>>();

function sweeperOf(scope: string): DeadlineWatch<RunSession> {
  let sweeper = sweepers.get(scope);
  if (!sweeper) {
    const watch: DeadlineWatch<RunSession> = new DeadlineWatch({ onIdle: () => sweepers.get(scope) === watch && sweepers.delete(scope) });
    sweepers.set(scope, (sweeper = watch));
  }
  return sweeper;
}

/** One run's host state; executors call `log`, `progress`, `call` and `sleep` for the sandbox. */
export class RunSession {
  readonly logs: string[] = [];
  /** Resolves with the outcome of the first ending (deadline, cancel, log cap or the executor). */
  readonly ended: Promise<CodeOutcome>;
  /** When the run expires (ms since the epoch); while it waits to start, when its wait does. */
  get deadline(): number {
    return this.expiresAt;
  }
  private expiresAt: number;
  /** False while the run waits for its executor (QuickJS turns, turns.ts); its deadline starts with `begin`. */
  private begun: boolean;
  /** Whether its deadline is that of the run that started it (a nested QuickJS run's, turns.ts), sooner than its own. */
  private startersDeadline = false;
  private logBytes = 0;
  private progressBytes = 0;
  /** Fetches made through the gateway; the isolate's own `subRequests` limit never sees them. */
  private fetchCount = 0;
  private outcome: CodeOutcome | null = null;
  private resolveEnded!: (outcome: CodeOutcome) => void;
  private readonly started = performance.now();
  /** Sandbox timers (QuickJS `setTimeout`) by the sandbox's id, each with its sleeper's wake; the deadline is the scope's sweeper's. */
  private readonly timers = new Map<number, { timer: ReturnType<typeof setTimeout>; wake: () => void }>();
  /** Granted fetches in flight: the run's end aborts them, so none reads on into the host's memory. */
  private readonly fetches = new Set<AbortController>();
  private readonly sweeper: DeadlineWatch<RunSession>;

  constructor(
    readonly request: SandboxRequest,
    readonly executor: ExecutorName,
    readonly memoryLimitBytes: number,
    /** Longest wait before the run starts (ms); 0: it starts now. */
    private readonly maxWaitMs = 0,
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    this.begun = maxWaitMs === 0;
    this.expiresAt = Date.now() + (this.begun ? request.timeoutMs : maxWaitMs);
    this.sweeper = sweeperOf(request.scope);
    this.sweeper.add(this);
    request.cancellation.onCancel(() => this.end("cancelled", "the run was cancelled"));
  }

  /** True once an outcome is decided; the sandbox's capabilities refuse from then on. */
  get closed(): boolean {
    return this.outcome !== null;
  }

  /** Starts the deadline of a run that waited: it counts from now, and ends by `until` (ms since the epoch) when sooner. */
  begin(until = Infinity): void {
    if (this.begun || this.outcome) return;
    this.begun = true;
    this.sweeper.delete(this);
    const own = Date.now() + this.request.timeoutMs;
    this.startersDeadline = until < own;
    this.expiresAt = Math.min(own, until);
    this.sweeper.add(this);
  }

  /** Ends the run with `timeout`: its deadline passed; `how` says how that was measured, if not by the clock. */
  expire(how?: string): CodeOutcome {
    if (!this.begun) return this.end("timeout", `the run waited ${this.maxWaitMs} ms for the ${this.executor} engine, busy with other runs of this isolate, and never started`);
    const which = this.startersDeadline ? "the deadline of the run that started it" : `its ${this.request.timeoutMs} ms deadline`;
    return this.end("timeout", `the run passed ${which}${how ? ` (${how})` : ""}`);
  }

  /** Decides the outcome (first call wins) and releases timers and listeners. */
  end(status: CodeStatus, error?: string, value?: unknown): CodeOutcome {
    if (this.outcome) return this.outcome;
    this.sweeper.delete(this);
    if (this.timers.size > 0) {
      for (const { timer } of this.timers.values()) clearTimeout(timer);
      this.timers.clear();
    }
    for (const f of this.fetches) f.abort();
    this.fetches.clear();
    this.request.cancellation.release();
    this.outcome = {
      status,
      ...(status === "success" ? { value } : { error: keptText(asWritten, error ?? status) }),
      logs: this.logs,
      durationMs: Math.round((performance.now() - this.started) * 1000) / 1000,
      memoryLimitBytes: this.memoryLimitBytes,
      executor: this.executor,
    };
    this.resolveEnded(this.outcome);
    return this.outcome;
  }

  /** Ends with `success` when the encoded result fits the cap, else `error`. */
  succeed(resultText: string): CodeOutcome {
    if (!fitsBytes(resultText, this.request.maxResultBytes)) {
      const size = byteLength(resultText);
      return this.end("error", `RangeError: the result is ${size} bytes encoded, over the ${this.request.maxResultBytes}-byte cap; return less (or store it with an import)`);
    }
    let value: unknown;
    try {
      value = decodeValue(resultText);
    } catch (error) {
      // Only code that replaced its own JSON (or the codec) sends text that does not decode.
      return this.end("error", `TypeError: the result arrived garbled (${describeError(error)}); did the code replace JSON?`);
    }
    return this.end("success", undefined, value);
  }

  /**
   * Ends the run with `timeout` when its deadline has passed by the clock. Checked at every call of
   * the sandbox into the host: a run whose calls keep the thread busy may leave no turn to the
   * deadline's timer, so the calls themselves enforce it.
   */
  private overdue(): void {
    if (this.begun && !this.outcome && Date.now() >= this.expiresAt) this.expire();
  }

  private refuseIfClosed(): void {
    this.overdue();
    if (this.outcome) throw new Error("this sandbox call has ended");
  }

  /** Refuses text from the sandbox over the value cap (`maxResultBytes`) before anything decodes it. */
  private refuseOverCap(text: string, what: string): void {
    if (!fitsBytes(text, this.request.maxResultBytes)) throw new RangeError(`${what} ${byteLength(text)} bytes encoded, over the ${this.request.maxResultBytes}-byte cap`);
  }

  /** Takes a console line; false once the run has ended (the sandbox may stop sending). */
  log(level: string, text: string): boolean {
    this.overdue();
    if (this.outcome) return false;
    const line = level === "log" ? String(text) : `[${level}] ${String(text)}`;
    // Each line counts with its newline: empty lines are output too, and each is an event.
    this.logBytes += byteLength(line) + 1;
    if (this.logBytes > this.request.maxLogBytes) {
      this.end("error", `RangeError: console output passed the ${this.request.maxLogBytes}-byte cap`);
      return false;
    }
    this.logs.push(line);
    this.request.onLog?.(level, String(text));
    return true;
  }

  /** Takes a `reportProgress` value, encoded; its data counts against the console's cap (`maxLogBytes`), apart. */
  progress(text: string): void {
    this.refuseIfClosed();
    this.progressBytes += byteLength(text);
    if (this.progressBytes > this.request.maxLogBytes) {
      this.end("error", `RangeError: reportProgress data passed the ${this.request.maxLogBytes}-byte cap`);
      this.refuseIfClosed();
    }
    this.request.onProgress?.(decodeValue(text));
  }

  /** Calls host import `module`.`name` with encoded arguments; resolves with the encoded result. */
  async call(module: string, name: string, argsText: string): Promise<string> {
    this.refuseIfClosed();
    const table = Object.hasOwn(this.request.imports, module) ? this.request.imports[module] : undefined;
    const fn = table && Object.hasOwn(table, name) ? table[name] : undefined;
    if (!fn) throw new Error(`the import ${JSON.stringify(module)} has no function ${JSON.stringify(name)}`);
    this.refuseOverCap(argsText, `${name}: the arguments are`);
    const args = decodeValue(argsText) as unknown[];
    const value = await fn(...args);
    this.refuseIfClosed();
    return encodeValue(value, `${name}() result`);
  }

  /**
   * The outbound gateway: performs `fetch` for the sandbox when the request's origin was granted
   * (`fetchAllow`), refusing every other origin. Redirects are returned, not followed, so a
   * granted origin cannot bounce the request elsewhere. Resolves with an encoded
   * `{ status, statusText, headers, body }`; a body over the value cap is refused, and so is a
   * fetch past the run's {@link ISOLATE_SUBREQUESTS}th, whichever the executor.
   */
  async fetch(url: string, initText: string): Promise<string> {
    this.refuseIfClosed();
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new TypeError(`fetch: ${JSON.stringify(url)} is not an absolute URL`);
    }
    if (!this.request.fetchAllow.includes(target.origin)) {
      const granted = this.request.fetchAllow.length ? `granted: ${this.request.fetchAllow.join(", ")}` : "no origin is granted";
      throw new Error(`fetch to ${target.origin} is not permitted (${granted})`);
    }
    this.refuseOverCap(initText, "fetch: the request is");
    if (++this.fetchCount > ISOLATE_SUBREQUESTS) throw new RangeError(`fetch: a run may make at most ${ISOLATE_SUBREQUESTS} fetches`);
    const init = decodeValue(initText) as { method?: string; headers?: Record<string, string>; body?: string };
    const controller = new AbortController();
    this.fetches.add(controller);
    try {
      const response = await fetch(target, {
        method: init.method ?? "GET",
        headers: init.headers ?? {},
        ...(init.body !== undefined ? { body: init.body } : {}),
        redirect: "manual",
        signal: controller.signal,
      });
      const body = await this.bodyOf(response);
      this.refuseIfClosed();
      return encodeValue({ status: response.status, statusText: response.statusText, headers: Object.fromEntries(response.headers), body }, "response");
    } finally {
      this.fetches.delete(controller);
    }
  }

  /** A response's body as text, read only up to the value cap: past it the rest is let go unread. */
  private async bodyOf(response: Response): Promise<string> {
    const cap = this.request.maxResultBytes;
    const tooLarge = () => new RangeError(`fetch: the response body is over the ${cap}-byte cap`);
    if (!response.body) return "";
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > cap) {
        void reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) bytes.set(chunk, (at += chunk.byteLength) - chunk.byteLength);
    const body = new TextDecoder().decode(bytes);
    // Bytes that are no UTF-8 decode to replacement characters, which take more bytes than they did.
    if (!fitsBytes(body, cap)) throw tooLarge();
    return body;
  }

  /**
   * Resolves after `ms` (sandbox timer `id`, a `setTimeout`'s), or never once the run has ended;
   * throws past {@link MAX_RUN_TIMERS} pending.
   */
  sleep(ms: number, id: number): Promise<void> {
    this.refuseIfClosed();
    if (this.timers.size >= MAX_RUN_TIMERS) throw new RangeError(`setTimeout: a run may have at most ${MAX_RUN_TIMERS} timers pending`);
    return new Promise((resolve) => {
      const wake = () => {
        this.timers.delete(id);
        resolve();
      };
      this.timers.set(id, { timer: setTimeout(wake, Math.max(0, Math.min(ms, this.request.timeoutMs))), wake });
    });
  }

  /** Clears sandbox timer `id` (`clearTimeout`): it no longer counts as pending, and its sleep resolves now. */
  wake(id: number): void {
    const pending = this.timers.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.wake();
  }
}
