/**
 * The Thread Durable Object: one per conversation thread, on SQLite storage. It only delegates:
 * storage to `ThreadStore`, behaviour to `ThreadEngine`, sockets to the Hibernation API.
 * @module
 */
import { type UnavailableTool, offeredTools, unavailableTools } from "../tools/catalog.js";
import { DurableObject } from "cloudflare:workers";
import { WeftError } from "../errors.js";
import type { CallRecord, EventFrame, Message } from "../protocol.js";
import { normalizeScript } from "../models/scripted.js";
import { DEFAULT_AGENT_ID, type Registry, agentIds, findAgent } from "../run/agent.js";
import type { GetMessagesOptions, MessagesResult } from "../tools/thread-state.js";
import { directCall, type DirectCallInput, type DirectCallOutcome } from "./direct.js";
import { type CrashHook, ThreadEngine } from "./engine.js";
import { TurnRunner, WATCHDOG_MS } from "./runner.js";
import type { Settlement } from "../tools/decide.js";
import type { CallOutcome } from "../tools/dispatch.js";
import { checkTimeArgNames } from "../tools/time-args.js";
import { type RpcResult, rpc } from "./rpc.js";
import { envSources } from "./state.js";
import { checkRequiredVariables, reachableTools } from "./variables.js";
import { isInitialized, migrate } from "./store/migrations.js";
import { ThreadStore } from "./store/index.js";
import type { ThreadMeta } from "./store/meta.js";
import { replayAndAccept } from "./sockets.js";
import type { TurnRecord } from "./store/turns.js";

/** Options of `POST /threads`. */
export interface CreateThreadInput {
  agent?: string;
  arguments?: Record<string, unknown>;
  userId?: string | null;
  script?: unknown;
  env?: Record<string, { value: string; type?: "text" | "secret" } | string>;
  dryRun?: boolean;
  asOf?: string;
  ephemeral?: boolean;
}

/** What `GET /threads/:id` returns. */
export interface ThreadInfo extends ThreadMeta {
  /** `waiting`: a turn waits for a person (an approval or a parked call). */
  status: "idle" | "running" | "waiting";
  messageCount: number;
  lastSeq: number;
  lastTurn?: TurnRecord;
  /** What the model is offered: each usable tool's name, description and input JSON Schema. */
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
  /** Tools the agent defines that cannot be offered, with why; never left out silently. */
  unavailableTools: UnavailableTool[];
}

/** The bindings weft expects on the Worker: `THREAD`, plus any vars and secrets. */
export interface WeftEnv {
  THREAD: DurableObjectNamespace;
  [name: string]: unknown;
}

/** Builds the Durable Object class for a registry (the class must be a module export). */
export function createThreadClass(registry: Registry) {
  return class Thread extends DurableObject<WeftEnv> {
    private readonly store: ThreadStore;
    private engine: ThreadEngine | null = null;
    private runner: TurnRunner | null = null;

    constructor(ctx: DurableObjectState, env: WeftEnv) {
      super(ctx, env);
      this.store = new ThreadStore(ctx.storage);
      ctx.blockConcurrencyWhile(async () => {
        if (!isInitialized(ctx.storage.sql)) return;
        migrate(ctx.storage);
        const meta = this.store.meta.read();
        if (!meta) return;
        this.attach(this.newEngine(meta));
        // Work a crash left behind is finished by the alarm, even if no client ever calls again.
        if (this.hasUnfinishedWork() && (await ctx.storage.getAlarm()) === null) await ctx.storage.setAlarm(Date.now() + 10);
      });
    }

    private attach(engine: ThreadEngine): void {
      this.engine = engine;
      engine.crashHook = this.crashHook();
      this.runner = new TurnRunner(engine, (delayMs) => void this.ctx.storage.setAlarm(Date.now() + delayMs), this.watchdogMs());
    }

    /** `WEFT_WATCHDOG_MS` (a positive integer of milliseconds), else {@link WATCHDOG_MS}. */
    private watchdogMs(): number {
      const configured = Number(this.env.WEFT_WATCHDOG_MS);
      return Number.isInteger(configured) && configured > 0 ? configured : WATCHDOG_MS;
    }

    /** Makes sure an alarm will fire: work a crash cuts is then finished with no client request. */
    private async armWatchdog(): Promise<void> {
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + this.watchdogMs());
    }

    /** Test seam of the crash matrix: a subclass returns a hook called at each crash point. */
    protected crashHook(): CrashHook | null {
      return null;
    }

    private hasUnfinishedWork(): boolean {
      const turn = this.store.turns.latest();
      return turn?.status === "running" || this.store.calls.unfinished().length > 0 || this.store.calls.queued().length > 0 || this.store.turns.inboxSize() > 0;
    }

    private newEngine(meta: ThreadMeta): ThreadEngine {
      return new ThreadEngine(
        {
          store: this.store,
          registry,
          workerEnv: this.env,
          broadcast: (frame: EventFrame) => this.broadcast(frame),
          wakeSoon: () => void this.ctx.storage.setAlarm(Date.now() + 50),
          flush: () => this.ctx.storage.sync(),
        },
        meta,
      );
    }

    private requireEngine(): ThreadEngine {
      if (!this.engine) throw new WeftError("thread_not_found", "no such thread");
      return this.engine;
    }

    private requireRunner(): TurnRunner {
      this.requireEngine();
      return this.runner!;
    }

    private broadcast(frame: EventFrame): void {
      const text = JSON.stringify(frame);
      for (const ws of this.ctx.getWebSockets()) {
        try {
          ws.send(text);
        } catch {
          // A socket that closed mid-send is dropped by the runtime; its client replays on reconnect.
        }
      }
    }

    async create(input: CreateThreadInput, threadId: string): Promise<RpcResult<ThreadMeta>> {
      return rpc(async () => {
        if (this.engine) {
          throw new WeftError("thread_exists", "a thread with this continuationToken exists already", {
            threadId: this.engine.meta.threadId,
            path: ["continuationToken"],
          });
        }
        const agentId = input.agent ?? DEFAULT_AGENT_ID;
        if (!findAgent(registry, agentId)) {
          throw new WeftError("agent_not_found", `no agent "${agentId}"; agents: ${agentIds(registry).join(", ")}`, {
            path: ["agent"],
          });
        }
        const script = normalizeScript(input.script ?? [], ["script"]);
        const agentScript = normalizeScript(findAgent(registry, agentId)!.script ?? [], ["agent", "script"]);
        const meta: ThreadMeta = {
          threadId,
          agentId,
          userId: input.userId ?? null,
          createdAt: Date.now(),
          arguments: input.arguments ?? {},
          dryRun: input.dryRun === true,
          ephemeral: input.ephemeral === true,
          ...(input.asOf ? { asOf: input.asOf } : {}),
        };
        migrate(this.ctx.storage);
        const engine = this.newEngine(meta);
        // seed-000: a thread with asOf refuses to start when a timeArgs name is not in its tool's schema.
        if (meta.asOf) for (const name of engine.catalog.names()) checkTimeArgNames(engine.catalog.get(name));
        const threadEnv = new Map(Object.entries(input.env ?? {}).map(([k, v]) => [k, typeof v === "string" ? { value: v, type: "secret" as const } : { value: v.value, type: v.type ?? ("secret" as const) }]));
        await checkRequiredVariables(reachableTools(registry, engine.sides, engine.catalog), {
          ...envSources(engine),
          thread: (name) => threadEnv.get(name),
        });
        if (this.engine) throw new WeftError("thread_exists", "a thread with this continuationToken exists already", { path: ["continuationToken"] });
        this.store.atomically(() => {
          this.store.meta.write(meta);
          this.store.turns.addScript([...agentScript, ...script]);
          for (const [name, v] of Object.entries(input.env ?? {})) {
            if (typeof v === "string") this.store.env.set(name, v);
            else this.store.env.set(name, v.value, v.type);
          }
        });
        this.attach(engine);
        engine.emit("thread_created", { threadId, agentId });
        const unavailable = unavailableTools(engine.catalog);
        if (unavailable.length > 0) engine.emit("tools_unavailable", { tools: unavailable });
        return meta;
      });
    }

    async info(): Promise<RpcResult<ThreadInfo>> {
      return rpc(() => {
        const engine = this.requireEngine();
        const lastTurn = this.store.turns.latest();
        return {
          ...engine.meta,
          status: this.runner!.active ? "running" : lastTurn?.status === "waiting" ? "waiting" : "idle",
          messageCount: this.store.messages.count(),
          lastSeq: this.store.events.lastSeq(),
          ...(lastTurn ? { lastTurn } : {}),
          tools: offeredTools(engine.catalog),
          unavailableTools: unavailableTools(engine.catalog),
        };
      });
    }

    async getMessages(options: GetMessagesOptions): Promise<RpcResult<MessagesResult>> {
      return rpc(() => {
        this.requireEngine();
        return this.store.messages.list(options);
      });
    }

    async postMessage(input: { content: string; role?: "user" | "system"; script?: unknown }): Promise<RpcResult<{ queued: boolean; message?: Message }>> {
      return rpc(() => {
        const runner = this.requireRunner();
        const script = input.script === undefined ? undefined : normalizeScript(input.script, ["script"]);
        return runner.postMessage({ content: input.content, ...(input.role ? { role: input.role } : {}), ...(script ? { script } : {}) });
      });
    }

    async listCalls(options: { status?: CallRecord["status"]; limit?: number; offset?: number } = {}): Promise<RpcResult<{ calls: CallRecord[] }>> {
      return rpc(() => {
        this.requireEngine();
        return { calls: this.store.calls.list(options.limit ?? 1000, options.offset ?? 0, options.status) };
      });
    }

    async getCall(callId: string): Promise<RpcResult<CallRecord>> {
      return rpc(() => {
        this.requireEngine();
        const call = this.store.calls.get(callId);
        if (!call) throw new WeftError("call_not_found", `no call ${JSON.stringify(callId)} in this thread`, { callId });
        return call;
      });
    }

    async approve(callId: string, approvedBy: string, argsHash?: string): Promise<RpcResult<CallOutcome>> {
      return rpc(() => this.requireRunner().approve(callId, approvedBy, argsHash));
    }

    async deny(callId: string, deniedBy: string, reason?: string): Promise<RpcResult<CallOutcome>> {
      return rpc(() => this.requireRunner().deny(callId, deniedBy, reason));
    }

    async settle(callId: string, settlement: Settlement): Promise<RpcResult<CallOutcome>> {
      return rpc(() => this.requireRunner().settle(callId, settlement));
    }

    /** A file of the thread: a capped result's full text, or an attachment (base64 for binary). */
    async getFile(path: string): Promise<RpcResult<{ mimeType: string; size: number; data: string }>> {
      return rpc(() => {
        this.requireEngine();
        const info = this.store.files.info(path);
        if (!info) throw new WeftError("not_found", `no file ${JSON.stringify(path)} in this thread`, { path: ["path"] });
        return { mimeType: info.mimeType, size: info.size, data: this.store.files.read(path)! };
      });
    }

    async callTool(input: DirectCallInput): Promise<RpcResult<DirectCallOutcome>> {
      return rpc(async () => {
        const engine = this.requireEngine();
        // A direct call runs outside any turn; the watchdog finishes it if a crash cuts it.
        await this.armWatchdog();
        return directCall(engine, this.runner!, input);
      });
    }

    async stop(): Promise<RpcResult<{ stopped: boolean }>> {
      return rpc(() => ({ stopped: this.requireRunner().stop() }));
    }

    /** Resolves once no turn runs; for tests and graceful shutdown. */
    async waitIdle(): Promise<RpcResult<null>> {
      return rpc(async () => {
        await this.runner?.idle();
        return null;
      });
    }

    /** Removes every row: the end of an ephemeral thread. */
    async destroy(): Promise<RpcResult<null>> {
      return rpc(async () => {
        await this.runner?.idle();
        this.engine = null;
        this.runner = null;
        await this.ctx.storage.deleteAlarm();
        await this.ctx.storage.deleteAll();
        return null;
      });
    }

    /** The watchdog: resumes a turn cut by a restart, recovers calls, drains the queue. */
    override async alarm(): Promise<void> {
      if (!this.runner) return;
      // Armed first: if recovery itself is cut by a crash, the next alarm tries again.
      await this.ctx.storage.setAlarm(Date.now() + this.watchdogMs());
      if (this.runner.active) return;
      await this.runner.resume();
      if (!this.runner.active && !this.hasUnfinishedWork()) await this.ctx.storage.deleteAlarm();
    }

    override async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      if (url.pathname.endsWith("/ws")) {
        if (!this.engine) return Response.json(new WeftError("thread_not_found", "no such thread").toBody(), { status: 404 });
        return replayAndAccept(this.ctx, this.store, request);
      }
      return Response.json(new WeftError("not_found", `no route ${url.pathname}`).toBody(), { status: 404 });
    }

    override async webSocketMessage(): Promise<void> {
      // Subscribers only listen; keep-alive "ping" is answered by the runtime's auto-response.
    }

    override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
      try {
        ws.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
      } catch {
        // Already closed.
      }
    }
  };
}
