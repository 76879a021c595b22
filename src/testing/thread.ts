/**
 * A thread under test: made by {@link createTestThread}, driven through the Worker's own HTTP
 * routes (the same ones a client uses), inside workerd.
 * @module
 */
import { exports } from "cloudflare:workers";
import { type ClientAnswer, type ToolCallOutcome, WeftClient } from "../client/index.js";
import type { CallRecord, EventFrame, Message } from "../protocol.js";
import type { ThreadInfo } from "../thread/api.js";
import type { ScriptStep } from "../models/model.js";
import type { MessageContent } from "../content/parts.js";
import { RECORDABLE_PROVIDERS, RECORDER_HOST, type ModelSource, type RecordableProvider } from "./models.js";

/** Base URL the kit's requests carry; the test Worker sees them as local (`WEFT_AUTH = "none"` in vitest.agents.config.ts). */
const BASE = "http://localhost";

/** An env value as `POST /threads` takes it: a plain string is a `secret`. */
export type TestEnvValue = string | { value: string; type?: "text" | "secret" };

/** What {@link createTestThread} takes. */
export interface TestThreadOptions {
  /** The agent (a file name under `agents/agents/`); default as `POST /threads` picks it. */
  agent?: string;
  /** The thread's creation `arguments`. */
  arguments?: Record<string, unknown>;
  /** Where model answers come from; default {@link scripted} with no steps (post steps with each message). */
  model?: ModelSource;
  /** Thread-level env values (they beat the Worker's); a plain string is a secret. */
  env?: Record<string, TestEnvValue>;
  /**
   * A bearer token (an API key or a JWT) for a test Worker that wants credentials; the thread
   * belongs to its user. `npm run test:agents` runs the Worker with `WEFT_AUTH = "none"`, so your
   * tests need none.
   */
  token?: string;
}

/** What one {@link TestThread.post}, approval or denial led to, once the thread stopped running. */
export interface TurnOutcome {
  /** `idle` when the turn ended; `waiting` when a call waits for a person (see {@link TurnOutcome.waiting}). */
  status: ThreadInfo["status"];
  /** The thread's newest turn record (`status`: completed, stopped, failed, ...; `steps`). */
  turn: ThreadInfo["lastTurn"];
  /** Messages stored since the action, oldest first (silent and nested ones included). */
  messages: Message[];
  /** Call records created or changed since the action, in creation order. */
  calls: CallRecord[];
  /** Calls waiting for a person now: an approval to give (`awaiting_approval`) or an outcome to settle (`parked`). */
  waiting: CallRecord[];
  /** The text of the last assistant message with text among {@link TurnOutcome.messages}, or "" when there is none. */
  text: string;
}

/** Where a thread stood when an outcome was reported: what the next outcome counts from. */
interface Seen {
  messageCount: number;
  lastSeq: number;
  /** The newest turn's id, if any. */
  lastTurn: string | undefined;
  /** Whether that turn was still open (`running`, or `waiting` for a person or a client's answer). */
  lastTurnOpen: boolean;
  /** The newest message's id (0: none). */
  newest: number;
  /** Each call record then, as JSON, by call id. */
  calls: Map<string, string>;
}

/** Whether a turn has not ended: it runs, or waits for a person or a client's answer. */
const isOpen = (turn: NonNullable<ThreadInfo["lastTurn"]>): boolean => turn.status === "running" || turn.status === "waiting";

/** What of {@link Seen} a thread's info tells. */
const seenOf = (info: ThreadInfo) => ({ messageCount: info.messageCount, lastSeq: info.lastSeq, lastTurn: info.lastTurn?.turnId, lastTurnOpen: info.lastTurn !== undefined && isOpen(info.lastTurn) });

/** The end of one turn, read from the thread's frames: its record as the frames tell it, where it ended, and the newest message by then. */
interface TurnEnd {
  turnId: string;
  record: NonNullable<ThreadInfo["lastTurn"]>;
  seq: number;
  newestMessage: number;
}

/**
 * The end of the turn that stored message `messageId` (the turn open when it was stored, or the next
 * to start), once `frames` hold it; null before.
 */
function turnEndOf(frames: readonly EventFrame[], messageId: number): TurnEnd | null {
  let open: { turnId: string; at: string } | null = null;
  let ours: { turnId: string; at: string } | null = null;
  let stored = false;
  let newestMessage = 0;
  for (const f of frames) {
    const d = f.data as { turnId?: string; message?: { id: number }; status?: string; steps?: number; error?: string; errorCode?: string };
    if (f.type === "message_created" && d.message) {
      newestMessage = Math.max(newestMessage, d.message.id);
      if (d.message.id === messageId) (stored = true), (ours = open);
    } else if (f.type === "turn_started") {
      open = { turnId: d.turnId!, at: f.at };
      if (stored && !ours) ours = open;
    } else if ((f.type === "turn_finished" || f.type === "turn_waiting") && ours && d.turnId === ours.turnId) {
      const ended = f.type === "turn_finished";
      const record = { turnId: ours.turnId, status: ended ? d.status : "waiting", steps: d.steps ?? 0, startedAt: Date.parse(ours.at), ...(ended ? { finishedAt: Date.parse(f.at) } : {}), ...(d.error !== undefined ? { error: d.error } : {}), ...(d.errorCode !== undefined ? { errorCode: d.errorCode } : {}) };
      return { turnId: ours.turnId, record: record as TurnEnd["record"], seq: f.seq, newestMessage };
    } else if (f.type === "turn_finished" && open && d.turnId === open.turnId) open = null;
  }
  return null;
}

/** The test Worker's fetch: the `main` of the vitest config's wrangler file. */
function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  return (exports as unknown as { default: Fetcher }).default.fetch(new Request(input, init));
}

/** Controls the recorder (scripts/lib/recorder.mjs) through the test Worker's outbound fetch. */
async function recorder<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${RECORDER_HOST}${path}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`recorder: ${text}`);
  return JSON.parse(text) as T;
}

/** The thread env a model source needs, and the recorder session when it is recorded. */
async function modelEnv(model: ModelSource, env: Record<string, TestEnvValue>): Promise<{ env: Record<string, TestEnvValue>; session?: string }> {
  // WEFT_TEST_MODEL beats an agent's own `model` under the test runner (src/run/model-choice.ts); WEFT_MODEL does elsewhere.
  if (model.kind === "scripted") return { env: { WEFT_TEST_MODEL: { value: "scripted", type: "text" }, ...env } };
  const spec = { WEFT_MODEL: { value: model.model, type: "text" as const }, WEFT_TEST_MODEL: { value: model.model, type: "text" as const } };
  if (model.kind === "live") return { env: { ...spec, ...env } };
  const provider = model.model.slice(0, model.model.indexOf(":")) as RecordableProvider;
  const names = RECORDABLE_PROVIDERS[provider];
  const secrets = Object.values(env).flatMap((v) => (typeof v === "string" ? [v] : v.type === "text" ? [] : [v.value]));
  const { session } = await recorder<{ session: string }>("POST", "/sessions", { file: model.file, provider, secrets });
  return {
    session,
    env: { ...env, ...spec, [names.key]: { value: "weft-recorder-placeholder", type: "secret" }, [names.baseUrl]: { value: `${RECORDER_HOST}/s/${session}`, type: "text" } },
  };
}

/**
 * Creates a thread for an agent of `agents/` in the test Worker, with its model answers from
 * `options.model`.
 * @throws Error naming the status and the Worker's error body when the thread is refused (an
 *   unknown agent, a bad env value), or the recorder's message when a recording cannot be used
 * @example
 * const thread = await createTestThread({ agent: "example", model: scripted([{ text: "Hi!" }]) });
 * expect((await thread.post("Hello")).text).toBe("Hi!");
 */
export async function createTestThread(options: TestThreadOptions = {}): Promise<TestThread> {
  const client = new WeftClient({ url: BASE, fetch: workerFetch as typeof fetch, ...(options.token !== undefined ? { token: options.token } : {}) });
  const model = options.model ?? { kind: "scripted", steps: [] };
  const { env, session } = await modelEnv(model, options.env ?? {});
  const created = await client.createThread({
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.arguments !== undefined ? { arguments: options.arguments } : {}),
    ...(model.kind === "scripted" && model.steps.length > 0 ? { script: model.steps } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
  });
  return new TestThread(client, created.threadId, session, options.token);
}

/** A thread in the test Worker; every method goes through the Worker's HTTP routes. */
export class TestThread {
  /** @internal made by {@link createTestThread} */
  constructor(
    /** The typed client the kit uses, for anything the helpers do not cover. */
    readonly client: WeftClient,
    /** The thread's id. */
    readonly id: string,
    private readonly session?: string,
    /** The bearer token the client sends, for the socket `post` follows the thread on. */
    private readonly token?: string,
  ) {}

  /**
   * Posts a user message (with `script`: steps for the scripted model to play first) and waits
   * for the turn it began to end, or to wait for a person; a turn that starts right after (a
   * background run's completion) is left for {@link TestThread.nextTurn}. A message queued behind
   * a running turn is reported once the thread stops running. `content` is
   * text, or parts: text, images and files (`{ type: "image", image, mediaType? }`,
   * `{ type: "file", data, mediaType, filename? }`, data an http(s) URL or base64), sent to the
   * model in its provider's own form.
   * @throws Error when the post is refused, when a recorded provider saw a request that differs
   *   from the recording (with the diff), or after `timeoutMs` (default 60 000, a bound for a turn that hangs, generous for a loaded machine) of running
   */
  async post(content: MessageContent, options: { script?: ScriptStep[]; timeoutMs?: number } = {}): Promise<TurnOutcome> {
    const post = () => this.client.postMessage(this.id, { content, ...(options.script ? { script: options.script } : {}) });
    const before = await this.#now();
    // Followed from before the post, so the turn its message began is told from one that starts
    // right after it (a background run's completion): the outcome is that turn's.
    const turns = await this.#follow(before.lastSeq);
    try {
      const posted = await post();
      // Queued behind a running turn: its own turn comes when that one ends, as the thread's next.
      if (!posted.message) return await this.#settle(async () => undefined, options.timeoutMs, undefined, before);
      return await this.#report(before, await turns.endOf(posted.message.id, options.timeoutMs ?? 60_000));
    } finally {
      turns.close();
    }
  }

  /** Approves a call waiting for approval (by call id) and waits as {@link TestThread.post} does. */
  async approve(callId: string, options: { timeoutMs?: number } = {}): Promise<TurnOutcome> {
    return this.#settle(() => this.client.approve(this.id, callId), options.timeoutMs);
  }

  /** Denies a call waiting for approval; the model gets the denial (with `reason`). Waits as {@link TestThread.post} does. */
  async deny(callId: string, reason?: string, options: { timeoutMs?: number } = {}): Promise<TurnOutcome> {
    return this.#settle(() => this.client.deny(this.id, callId, reason === undefined ? {} : { reason }), options.timeoutMs);
  }

  /**
   * Answers a client tool's call (`executionMode: "client"`) that waits for the client, as a chat
   * screen would (`POST /threads/:id/calls/:callId/result`), and waits as {@link TestThread.post}
   * does: the turn goes on with the answer. `answer` is `{ result }` (the tool's result) or `{ error }`.
   * @throws WeftClientError (weft/client) `call_not_waiting` for a call that is not a client tool's waiting one
   */
  async answer(callId: string, answer: ClientAnswer, options: { timeoutMs?: number } = {}): Promise<TurnOutcome> {
    return this.#settle(() => this.client.answerCall(this.id, callId, answer), options.timeoutMs);
  }

  /**
   * Waits for the next turn this test has not seen (one a schedule or a background run started) to
   * end, and reports it as {@link TestThread.post} does, with what changed since the last outcome
   * this thread's helpers reported (or since the thread was made). A turn that ended before the
   * call and after that outcome is the one reported, at once: no race with a schedule due soon.
   * @throws Error after `timeoutMs` (default 60 000) without such a turn stopping
   * @example
   * await thread.client.createSchedule(thread.id, { at: Date.now() + 1500, target: { agent: "example", message: "Remind me." } });
   * expect((await thread.nextTurn()).text).toBe("Reminder sent.");
   */
  async nextTurn(options: { timeoutMs?: number } = {}): Promise<TurnOutcome> {
    return this.#settle(async () => undefined, options.timeoutMs, (info, before) => info.lastTurn !== undefined && (info.lastTurn.turnId !== before.lastTurn || (before.lastTurnOpen && !isOpen(info.lastTurn))), this.#seen);
  }

  /**
   * Calls tool `name` directly in this thread (`POST /v1/tools/:name` with the thread as its
   * session), through the pipeline a model's call takes: the input validated, the call journaled,
   * its state the thread's (key-value store, env). No model and no turn.
   * @returns the outcome: `isError: true` for the tool's own failure, the call waiting for a person
   *   (`awaiting_approval`) for a tool that needs approval.
   * @throws WeftClientError (weft/client) for a refused call, with its `code`: `unknown_tool`, `invalid_tool_input` naming the path.
   */
  callTool(name: string, input: unknown = {}): Promise<ToolCallOutcome> {
    return this.client.callTool(name, input, { sessionId: this.id });
  }

  /** `GET /threads/:id`: status, last turn, tools offered. */
  info(): Promise<ThreadInfo> {
    return this.client.getThread(this.id);
  }

  /** Every message, oldest first, silent and nested ones included. */
  async messages(): Promise<Message[]> {
    const all: Message[] = [];
    for await (const m of this.client.messages(this.id, { includeSilent: true })) all.push(m);
    return all;
  }

  /** Every call record, in creation order; with `toolName`, only that tool's. */
  async calls(toolName?: string): Promise<CallRecord[]> {
    const calls: CallRecord[] = [];
    for await (const c of this.client.calls(this.id)) if (toolName === undefined || c.toolName === toolName) calls.push(c);
    return calls;
  }

  /** Calls waiting for approval now. */
  async pendingApprovals(): Promise<CallRecord[]> {
    const calls: CallRecord[] = [];
    for await (const c of this.client.calls(this.id, { status: "awaiting_approval" })) calls.push(c);
    return calls;
  }

  /** Every event frame so far (`thread_created` first), read through the thread's WebSocket replay. */
  async events(): Promise<EventFrame[]> {
    const { lastSeq } = await this.info();
    const res = await workerFetch(`${BASE}/threads/${this.id}/ws?since=0`, { headers: { Upgrade: "websocket" } });
    const ws = res.webSocket;
    if (!ws) throw new Error(`events: the WebSocket was refused: ${res.status} ${await res.text()}`);
    const frames: EventFrame[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`events: ${frames.length} frames of ${lastSeq} after 60 s`)), 60_000);
      ws.addEventListener("message", (e) => {
        frames.push(JSON.parse(String(e.data)) as EventFrame);
        if ((frames.at(-1)?.seq ?? 0) >= lastSeq) clearTimeout(timer), resolve();
      });
      ws.accept();
      if (lastSeq === 0) clearTimeout(timer), resolve();
    });
    ws.close(1000, "done");
    return frames.filter((f) => f.seq <= lastSeq);
  }

  /**
   * Runs `action`, then waits until no turn runs and the thread `moved` since (by default: a message
   * or an event came), and reports what changed.
   */
  async #settle(action: () => Promise<unknown>, timeoutMs = 60_000, moved = (info: ThreadInfo, before: Seen) => info.messageCount !== before.messageCount || info.lastSeq !== before.lastSeq, since?: Seen): Promise<TurnOutcome> {
    const before = since ?? (await this.#now());
    await action();
    const deadline = Date.now() + timeoutMs;
    let info = await this.info();
    // A turn may be starting: a post answers before its turn runs.
    while (info.status === "running" || !moved(info, before)) {
      if (Date.now() > deadline) throw new Error(`thread ${this.id} still ${info.status} after ${timeoutMs} ms (last turn: ${JSON.stringify(info.lastTurn ?? null)})`);
      await new Promise((r) => setTimeout(r, 10));
      info = await this.info();
    }
    return this.#report(before, null, info);
  }

  /**
   * The thread's frames from `since` on, as they come (the WebSocket clients get), and how to wait
   * for the end of the turn that stored message `messageId`: its `turn_finished`, or `turn_waiting`.
   */
  async #follow(since: number): Promise<{ endOf(messageId: number, timeoutMs: number): Promise<TurnEnd>; close(): void }> {
    const auth: Record<string, string> = this.token === undefined ? {} : { Authorization: `Bearer ${this.token}` };
    const res = await workerFetch(`${BASE}/threads/${this.id}/ws?since=${since}`, { headers: { Upgrade: "websocket", ...auth } });
    const ws = res.webSocket;
    if (!ws) throw new Error(`post: the WebSocket was refused: ${res.status} ${await res.text()}`);
    const frames: EventFrame[] = [];
    let wake = () => undefined as void;
    ws.addEventListener("message", (e) => (frames.push(JSON.parse(String(e.data)) as EventFrame), wake()));
    ws.accept();
    const endOf = async (messageId: number, timeoutMs: number): Promise<TurnEnd> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = turnEndOf(frames, messageId);
        if (end) return end;
        if (Date.now() > deadline) throw new Error(`thread ${this.id}: the turn of message ${messageId} did not end in ${timeoutMs} ms`);
        await new Promise<void>((r) => ((wake = r), setTimeout(r, 50)));
      }
    };
    return { endOf, close: () => ws.close(1000, "done") };
  }

  /**
   * What changed since `before`: up to the end of the turn `end` closed (a later turn's messages
   * and calls are left for the outcome that reports it), or, with no `end`, up to `settled` (the
   * thread's info once it stopped running).
   */
  async #report(before: Seen, end: TurnEnd | null, settled?: ThreadInfo): Promise<TurnOutcome> {
    await this.#recorderErrors();
    const info = settled ?? (await this.info());
    const messages: Message[] = [];
    for await (const m of this.client.messages(this.id, { includeSilent: true, after: before.newest })) if (!end || m.id <= end.newestMessage) messages.push(m);
    const all = await this.calls();
    const ours = (c: CallRecord) => !end || c.turnId === undefined || c.turnId === end.turnId;
    const calls = all.filter((c) => ours(c) && before.calls.get(c.callId) !== JSON.stringify(c));
    const waiting = all.filter((c) => c.status === "awaiting_approval" || c.status === "parked");
    const text = [...messages].reverse().find((m) => m.role === "assistant" && m.content !== "")?.content ?? "";
    const seen = { newest: messages.at(-1)?.id ?? before.newest, calls: new Map(all.map((c) => [c.callId, ours(c) ? JSON.stringify(c) : before.calls.get(c.callId) ?? ""])) };
    if (!end) {
      this.#seen = { ...seenOf(info), ...seen };
      return { status: info.status, turn: info.lastTurn, messages, calls, waiting, text };
    }
    const waits = end.record.status === "waiting";
    this.#seen = { messageCount: info.messageCount, lastSeq: end.seq, lastTurn: end.turnId, lastTurnOpen: waits, ...seen };
    return { status: waits ? "waiting" : "idle", turn: info.lastTurn?.turnId === end.turnId ? info.lastTurn : end.record, messages, calls, waiting, text };
  }

  /** Where the thread stands now, as {@link Seen} records it. */
  async #now(): Promise<Seen> {
    const info = await this.info();
    const newest = (await this.client.getMessages(this.id, { limit: 1, order: "desc", includeSilent: true })).messages[0]?.id ?? 0;
    const calls = new Map((await this.calls()).map((c) => [c.callId, JSON.stringify(c)]));
    return { ...seenOf(info), newest, calls };
  }

  /** What the last reported outcome showed (nothing yet: a thread just made); {@link TestThread.nextTurn} counts from it. */
  #seen: Seen = { messageCount: 0, lastSeq: 0, lastTurn: undefined, lastTurnOpen: false, newest: 0, calls: new Map() };

  /** Throws what the recorder found wrong (a request that differs from the recording). */
  async #recorderErrors(): Promise<void> {
    if (this.session === undefined) return;
    const { errors } = await recorder<{ errors: string[] }>("GET", `/sessions/${this.session}`);
    if (errors.length > 0) throw new Error(errors.join("\n\n"));
  }
}
