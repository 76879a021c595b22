/**
 * The Thread Durable Object: one per conversation thread, on SQLite storage. It only delegates:
 * storage to `ThreadStore`, behaviour to `ThreadEngine`, sockets to the Hibernation API. It
 * implements `ThreadApi`, the one RPC surface the Worker uses; every answer is checked against the
 * caller (guard.ts) and cleaned of secrets (redact.ts) before it leaves.
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { ERROR_CODES, WeftError } from "../errors.js";
import type { CallRecord, EventFrame } from "../protocol.js";
import { normalizeScript } from "../models/scripted.js";
import type { Registry } from "../run/agent.js";
import { prepareThread } from "./create.js";
import type { GetMessagesOptions } from "../tools/thread-state.js";
import { directCall, type DirectCallInput } from "./direct.js";
import { type CrashHook, ThreadEngine } from "./engine.js";
import { Fanout } from "./fanout.js";
import { GroupCommit } from "./group-commit.js";
import { checkModel, checkScriptable } from "./model-choice.js";
import { TurnRunner } from "./runner.js";
import { WATCHDOG_MS, settingOf } from "../config.js";
import type { Settlement } from "../tools/decide.js";
import { checkTimeArgNames } from "../tools/time-args.js";
import { unavailableTools } from "../tools/catalog.js";
import { modelTools } from "./turn-host.js";
import type { ChildAnswer } from "./agent-tool.js";
import type { Caller, CreateThreadInput, ThreadApi, ThreadInfo } from "./api.js";
import { CALLER_HEADER } from "./api.js";
import { SCRATCH_TTL_MS, ThreadSecrets, UserEnv, callerFromHeader, checkAccess, thrownError } from "./guard.js";
import { redactLogs } from "./redact.js";
import { type RpcResult, rpc } from "./rpc.js";
import { envSources } from "./state.js";
import { checkRequiredVariables, reachableTools } from "./variables.js";
import { isInitialized, migrate } from "./store/migrations.js";
import { ThreadStore } from "./store/index.js";
import type { ThreadMeta } from "./store/meta.js";
import type { IdempotencyClaim } from "./store/idempotency.js";
import { onSocketMessage, replayAndAccept } from "./sockets.js";

/** The body of a thread create and what reading a thread answers, as the Durable Object's RPC methods take and give them. */
export type { CreateThreadInput, ThreadInfo } from "./api.js";

/** The bindings weft expects on the Worker: `THREAD`, `ACCOUNT`, plus any vars and secrets. */
export interface WeftEnv {
  THREAD: DurableObjectNamespace;
  /** The UserAccount namespace; without it there are no per-user env values or thread lists. */
  ACCOUNT?: DurableObjectNamespace;
  [name: string]: unknown;
}

/** Builds the Durable Object class for a registry (the class must be a module export). */
export function createThreadClass(registry: Registry) {
  return class Thread extends DurableObject<WeftEnv> implements ThreadApi {
    private readonly store: ThreadStore;
    private engine: ThreadEngine | null = null;
    private runner: TurnRunner | null = null;
    private readonly userEnv: UserEnv;
    private readonly secrets: ThreadSecrets;
    private readonly commits: GroupCommit;
    private readonly fanout: Fanout;

    constructor(ctx: DurableObjectState, env: WeftEnv) {
      super(ctx, env);
      this.store = new ThreadStore(ctx.storage);
      this.commits = new GroupCommit(() => ctx.storage.sync());
      this.fanout = new Fanout(() => ctx.getWebSockets());
      // A value a tool sets is a secret from that moment, in logs too.
      this.store.env.onChange = () => void this.secrets.redactor();
      this.userEnv = new UserEnv(() => this.env.ACCOUNT, () => this.engine?.meta.userId, () => ctx.id.toString());
      this.secrets = new ThreadSecrets(this.store, env, this.userEnv, () =>
        this.engine ? [this.engine.agent.env, ...Object.values(registry.prompts ?? {}).map((p) => p.env)] : null,
      );
      redactLogs(this.secrets);
      void ctx.blockConcurrencyWhile(async () => {
        if (!isInitialized(ctx.storage.sql)) return;
        migrate(ctx.storage);
        const meta = this.store.meta.read();
        if (!meta) return;
        this.attach(this.newEngine(meta));
        await this.refreshSecrets();
        // Work a crash left behind is finished by the alarm, even if no client ever calls again.
        if (this.hasUnfinishedWork() && (await ctx.storage.getAlarm()) === null) await ctx.storage.setAlarm(Date.now() + 10);
      }).then(() => {
        // A turn the restart cut goes on now, whatever woke us. Left to the alarm alone it could
        // wait for the runtime's retry backoff (2 s, 4 s, ... then dropped) when the restart also
        // cut the alarm handler that was resuming it before that handler re-armed.
        // A failure here (this instance aborted again meanwhile) is left to the alarm armed above.
        if (this.runner && this.store.turns.latestStatus() === "running") this.runner.resume().catch(() => undefined);
      });
    }

    /** Reloads the owner's env and rebuilds the redactor, so even console output is covered. */
    private async refreshSecrets(): Promise<void> {
      await this.userEnv.refresh();
      this.secrets.redactor();
    }

    private attach(engine: ThreadEngine): void {
      this.engine = engine;
      engine.crashHook = this.crashHook();
      this.runner = new TurnRunner(engine, (delayMs) => void this.ctx.storage.setAlarm(Date.now() + delayMs), this.watchdogMs());
    }

    /** `WEFT_WATCHDOG_MS` (a positive integer of milliseconds), else {@link WATCHDOG_MS}. */
    private watchdogMs(): number {
      const configured = Number(settingOf(this.env, "WEFT_WATCHDOG_MS"));
      return Number.isInteger(configured) && configured > 0 ? configured : WATCHDOG_MS;
    }

    /** Makes sure an alarm will fire: work a crash cuts is then finished with no client request. */
    private async armWatchdog(): Promise<void> {
      const at = await this.ctx.storage.getAlarm();
      const soon = Date.now() + this.watchdogMs();
      if (at === null || at > soon) await this.ctx.storage.setAlarm(soon);
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
          userEnv: this.userEnv,
          redact: (value) => this.secrets.redactor().value(value),
          redactEvent: (type, data) => this.secrets.event(type, data),
          broadcast: (frame: EventFrame) => this.broadcast(frame),
          wakeSoon: () => void this.ctx.storage.setAlarm(Date.now() + 50),
          flush: () => this.commits.flush(),
        },
        meta,
      );
    }

    /** The engine, when `caller` may reach this thread for `access`. */
    private guard(caller: Caller, access: "read" | "write"): ThreadEngine {
      if (!this.engine) throw new WeftError("thread_not_found", "no such thread");
      checkAccess(this.engine.meta.userId, caller, access);
      return this.engine;
    }

    /** Runs an RPC method; its answer (value or error) leaves without any secret. */
    private async answer<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
      const result = await rpc(fn);
      // The redactor is taken after the work: it may have read new account values or set a secret.
      return this.secrets.redactor().value(result);
    }

    /** Like `answer`, for work that may read the owner's env: reloads it first. */
    private async work<T>(caller: Caller, fn: (engine: ThreadEngine, runner: TurnRunner) => T | Promise<T>): Promise<RpcResult<T>> {
      return this.answer(async () => {
        const engine = this.guard(caller, "write");
        await this.refreshSecrets();
        return fn(engine, this.runner!);
      });
    }

    /**
     * Runs `act` once per Idempotency-Key: a repeat gets the first answer. Answers and final
     * errors are kept; a retryable error frees the key, so the retry acts.
     */
    private async once<T>(caller: Caller, idem: IdempotencyClaim | undefined, act: (cut: boolean) => Promise<RpcResult<T>>, creating = false): Promise<RpcResult<T>> {
      // Without a thread there is nothing to keep a key in (only a create makes one).
      if (!idem || (!this.engine && !creating)) return act(false);
      const claimed = await this.answer(() => {
        if (!this.engine) migrate(this.ctx.storage);
        else checkAccess(this.engine.meta.userId, caller, "write");
        return this.store.idempotency.claim<RpcResult<T>>(caller.userId, idem);
      });
      if (!claimed.ok) return claimed;
      if (claimed.value.state === "answered") return claimed.value.answer;
      const result = await act(claimed.value.cut);
      if (result.ok || !ERROR_CODES[result.error.code].retryable) this.store.idempotency.answer(caller.userId, idem, result);
      else this.store.idempotency.release(caller.userId, idem);
      return result;
    }

    private broadcast(frame: EventFrame): void {
      this.fanout.send(frame);
    }

    async create(caller: Caller, input: CreateThreadInput, threadId: string, idem?: IdempotencyClaim): Promise<RpcResult<ThreadMeta>> {
      const created = await this.once(caller, idem, (cut) => this.createOnce(caller, input, threadId, cut), true);
      // A failed create leaves no thread behind, not even its key: the retry fails the same way.
      if (idem && !created.ok && !this.engine) await this.ctx.storage.deleteAll();
      return created;
    }

    private async createOnce(caller: Caller, input: CreateThreadInput, threadId: string, cut: boolean): Promise<RpcResult<ThreadMeta>> {
      return this.answer(async () => {
        // An earlier create with this key made the thread and was cut before it answered.
        if (cut && this.engine && this.engine.meta.userId === caller.userId) return this.engine.meta;
        if (this.engine) {
          // Only the owner learns that its continuation token names a thread already.
          checkAccess(this.engine.meta.userId, caller, "write");
          throw new WeftError("thread_exists", "a thread with this continuationToken exists already", { threadId: this.engine.meta.threadId, path: ["continuationToken"] });
        }
        const { meta, script, env: threadEnv } = prepareThread(registry, caller, input, threadId);
        migrate(this.ctx.storage);
        const engine = this.newEngine(meta);
        // A thread with asOf refuses to start when a timeArgs name is not in its tool's schema.
        if (meta.asOf) for (const name of engine.catalog.names()) checkTimeArgNames(engine.catalog.get(name));
        await checkRequiredVariables(reachableTools(registry, engine.sides, engine.catalog), {
          ...envSources(engine),
          thread: (name) => threadEnv.get(name),
        });
        await checkModel(engine, (name) => threadEnv.get(name));
        if (this.engine) throw new WeftError("thread_exists", "a thread with this continuationToken exists already", { path: ["continuationToken"] });
        this.store.atomically(() => {
          this.store.meta.write(meta);
          this.store.script.add(script);
          for (const [name, v] of threadEnv) this.store.env.set(name, v.value, v.type);
          if (input.opening !== undefined) this.store.turns.enqueue({ role: "user", content: input.opening });
        });
        this.attach(engine);
        await this.refreshSecrets();
        // A scratch thread removes itself even if the Worker dies before it calls destroy().
        if (meta.ephemeral) await this.ctx.storage.setAlarm(meta.createdAt + SCRATCH_TTL_MS);
        engine.emit("thread_created", { threadId, agentId: meta.agentId });
        const unavailable = unavailableTools(engine.catalog);
        if (unavailable.length > 0) engine.emit("tools_unavailable", { tools: unavailable });
        if (input.opening !== undefined) void this.runner!.resume();
        return meta;
      });
    }

    async info(caller: Caller): Promise<RpcResult<ThreadInfo>> {
      return this.answer(() => {
        const engine = this.guard(caller, "read");
        const lastTurn = this.store.turns.latest();
        return {
          ...engine.meta,
          // A turn cut by a restart is still running: it resumes by itself before anything else.
          status: this.runner!.active || lastTurn?.status === "running" ? "running" : lastTurn?.status === "waiting" ? "waiting" : "idle",
          messageCount: this.store.messages.count(),
          lastSeq: this.store.events.lastSeq(),
          ...(lastTurn ? { lastTurn } : {}),
          tools: modelTools(engine.catalog),
          unavailableTools: unavailableTools(engine.catalog),
        };
      });
    }

    async getMessages(caller: Caller, options: GetMessagesOptions) {
      return this.answer(() => (this.guard(caller, "read"), this.store.messages.list(options)));
    }

    async postMessage(caller: Caller, input: { content: string; role?: "user" | "system"; script?: unknown }, idem?: IdempotencyClaim) {
      return this.once(caller, idem, () => this.work(caller, async (engine, runner) => {
        const script = input.script === undefined ? undefined : normalizeScript(input.script, ["script"]);
        if (script && script.length > 0) await checkScriptable(engine);
        return await runner.postMessage({ content: input.content, ...(input.role ? { role: input.role } : {}), ...(script ? { script } : {}) });
      }));
    }

    async listCalls(caller: Caller, options: { status?: CallRecord["status"]; limit?: number; offset?: number } = {}) {
      return this.answer(() => {
        this.guard(caller, "read");
        return { calls: this.store.calls.list(options.limit ?? 1000, options.offset ?? 0, options.status) };
      });
    }

    async getCall(caller: Caller, callId: string) {
      return this.answer(() => {
        this.guard(caller, "read");
        const call = this.store.calls.get(callId);
        if (!call) throw new WeftError("call_not_found", `no call ${JSON.stringify(callId)} in this thread`, { callId });
        return call;
      });
    }

    async approve(caller: Caller, callId: string, argsHash?: string, idem?: IdempotencyClaim) {
      return this.once(caller, idem, () => this.work(caller, (_e, runner) => runner.approve(callId, caller.userId, argsHash)));
    }

    async deny(caller: Caller, callId: string, reason?: string, idem?: IdempotencyClaim) {
      return this.once(caller, idem, () => this.work(caller, (_e, runner) => runner.deny(callId, caller.userId, reason)));
    }

    async settle(caller: Caller, callId: string, settlement: Settlement, idem?: IdempotencyClaim) {
      return this.once(caller, idem, () => this.work(caller, (_e, runner) => runner.settle(callId, { ...settlement, settledBy: caller.userId })));
    }

    async listFiles(caller: Caller) {
      return this.answer(() => (this.guard(caller, "read"), { files: this.store.files.list() }));
    }

    /** A file of the thread: a capped result's full text, or an attachment (base64 for binary). */
    async getFile(caller: Caller, path: string) {
      return this.answer(() => {
        this.guard(caller, "read");
        const file = this.store.files.content(path);
        if (!file) throw new WeftError("not_found", `no file ${JSON.stringify(path)} in this thread`, { path: ["path"] });
        return file;
      });
    }

    async deleteFile(caller: Caller, path: string) {
      return this.answer(() => {
        this.guard(caller, "write");
        if (!this.store.files.delete(path)) throw new WeftError("not_found", `no file ${JSON.stringify(path)} in this thread`, { path: ["path"] });
        return { deleted: true };
      });
    }

    async callTool(caller: Caller, input: DirectCallInput, idem?: IdempotencyClaim) {
      return this.once(caller, idem, () =>
        this.work(caller, async (engine, runner) => {
          // A direct call runs outside any turn; the watchdog finishes it if a crash cuts it.
          await this.armWatchdog();
          return directCall(engine, runner, input);
        }),
      );
    }

    async accountEnvChanged(): Promise<{ live: boolean }> {
      this.userEnv.invalidate();
      return { live: this.engine !== null };
    }

    async keep(caller: Caller): Promise<RpcResult<null>> {
      return this.answer(() => {
        const engine = this.guard(caller, "write");
        if (engine.meta.ephemeral) {
          engine.meta.ephemeral = false;
          this.store.meta.write(engine.meta);
        }
        return null;
      });
    }

    async stop(caller: Caller) {
      return this.answer(() => (this.guard(caller, "write"), { stopped: this.runner!.stop() }));
    }

    /**
     * How this thread's work stands, for the parent of a child thread (the caller is the parent's
     * owner): with `wait`, once its queued and cut work is done (or waits for a person).
     */
    async childAnswer(caller: Caller, wait: boolean): Promise<RpcResult<ChildAnswer>> {
      return this.answer(async () => {
        this.guard(caller, "read");
        const runner = this.runner!;
        if (wait) await runner.resume();
        const turn = this.store.turns.latest();
        const busy = runner.active || this.store.turns.inboxSize() > 0;
        const status: ChildAnswer["status"] = busy ? "running" : (turn?.status ?? "idle");
        return { status, answer: this.store.messages.lastAnswer(), ...(turn?.error ? { error: turn.error } : {}) };
      });
    }

    /**
     * A child thread's turn ended: a call of this thread waiting on it may go on (the caller is
     * this thread's owner, as the child acts). Answers at once; the resume runs apart.
     */
    async childChanged(caller: Caller): Promise<RpcResult<null>> {
      return this.answer(() => {
        this.guard(caller, "write");
        void this.runner!.resume();
        return null;
      });
    }

    async waitIdle(): Promise<RpcResult<null>> {
      return rpc(async () => {
        await this.runner?.idle();
        return null;
      });
    }

    async destroy(caller: Caller): Promise<RpcResult<null>> {
      return this.answer(async () => {
        this.guard(caller, "write");
        await this.removeAll();
        return null;
      });
    }

    private async removeAll(): Promise<void> {
      await this.runner?.idle();
      this.engine = null;
      this.runner = null;
      this.store.env.version++;
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
    }

    /** The watchdog: resumes a turn cut by a restart, recovers calls, drains the queue; ends scratch threads. */
    override async alarm(): Promise<void> {
      if (!this.runner) return;
      if (this.runner.active) {
        this.ctx.storage.setAlarm(Date.now() + this.watchdogMs());
        return;
      }
      const meta = this.engine!.meta;
      if (meta.ephemeral && Date.now() >= meta.createdAt + SCRATCH_TTL_MS && !this.runner.busy) {
        await this.removeAll();
        return;
      }
      // Armed before recovering: if recovery itself is cut by a crash, the next alarm tries again.
      await this.ctx.storage.setAlarm(Date.now() + this.watchdogMs());
      await this.refreshSecrets();
      await this.runner.resume();
      if (!this.runner.active && !this.hasUnfinishedWork()) {
        if (meta.ephemeral) await this.ctx.storage.setAlarm(meta.createdAt + SCRATCH_TTL_MS);
        else await this.ctx.storage.deleteAlarm();
      }
    }

    override async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      if (!url.pathname.endsWith("/ws")) return Response.json(new WeftError("not_found", `no route ${url.pathname}`).toBody(), { status: 404 });
      // Checked before accepting: a refused upgrade is a plain 401/404, never a socket that closes.
      const caller = callerFromHeader(request.headers.get(CALLER_HEADER));
      const refused = !caller
        ? new WeftError("unauthenticated", "no verified caller")
        : thrownError(() => this.guard(caller, "read"));
      if (refused) return Response.json(refused.toBody(), { status: refused.status });
      this.fanout.flush();
      return replayAndAccept(this.ctx, this.store, request);
    }

    override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
      onSocketMessage(ws, message, this.env);
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
