/**
 * The Thread Durable Object: one per conversation thread, on SQLite storage. It only delegates:
 * storage to `ThreadStore`, behaviour to its `PortWorld` (src/run/port-world.ts), its lifecycle
 * (restore, watchdog alarm, WebSockets) to `ThreadObject` (core.ts). It implements `ThreadApi`,
 * the one RPC surface the Worker uses; every answer is checked against the caller (guard.ts) and
 * cleaned of secrets (src/secrets/) before it leaves.
 * @module
 */
import { WeftError, echoedValue, quotedValue } from "../errors.js";
import { pageSize } from "../limits.js";
import type { Message } from "../protocol.js";
import { normalizeScript } from "../models/scripted.js";
import type { Registry } from "../run/agent.js";
import type { GetMessagesOptions } from "../tools/thread-state.js";
import type { Settlement } from "../calls/decide.js";
import { unavailableTools } from "../tools/catalog.js";
import type { ChildAnswer } from "../run/agent-tool.js";
import type { CreateThreadInput, ScratchCallOutcome, ThreadApi, ThreadInfo } from "./api.js";
import type { ScheduleInfo } from "../schedules/info.js";
import { runScheduleNow } from "../schedules/run-now.js";
import { ThreadObject, type WeftEnv } from "./core.js";
import { prepareThread, storeNewThread } from "./create.js";
import { historyRedactor } from "../secrets/user-env.js";
import { checkStoredHistory } from "../run/seed-history.js";
import type { PostMessageInput } from "../run/posted.js";
import { directCall, outcomeText, outcomeWaitsForPerson } from "../run/direct.js";
import type { DirectCallInput } from "../run/rpc-shapes.js";
import { type CallsPageOptions, callsPage, keyedCallId, publicRecord } from "../calls/call.js";
import { SCRATCH_TTL_MS, checkAccess } from "./guard.js";
import { cutByRemoval } from "./removal.js";
import { accountOf, callIdKeyOf } from "../account/api.js";
import { checkScriptable, modelsInForce } from "../run/model-choice.js";
import { type Caller, type IdempotencyClaim, type RpcFailure, type RpcResult, rpc, rpcFailure } from "../rpc.js";
import { deleteAllRows, migrate } from "./store/migrations.js";
import type { ThreadMeta } from "../ports/store.js";
import { modelTools } from "../run/conversation.js";
import { checkNewThread } from "../run/new-thread.js";
import { ThreadUsageLedger } from "../usage/thread-ledger.js";
import { type FilePage, listedFiles, servedFileAt } from "../secrets/served-file.js";
import { attributeEntries } from "../secrets/log-context.js";

/** The body of a thread create and what reading a thread answers, as the Durable Object's RPC methods take and give them. */
export type { CreateThreadInput, ThreadInfo } from "./api.js";
/** The bindings weft expects on the Worker (core.ts). */
export type { WeftEnv } from "./core.js";

/** Builds the Durable Object class for a registry (the class must be a module export). */
export function createThreadClass(registry: Registry) {
  return class Thread extends ThreadObject implements ThreadApi {
    // Each entry runs as this thread's work: its console lines pass its log redactor alone.
    static { attributeEntries(this.prototype, (thread) => thread.secrets); }

    constructor(ctx: DurableObjectState, env: WeftEnv) {
      super(ctx, env, registry);
    }

    async create(caller: Caller, input: CreateThreadInput, threadId: string, idem?: IdempotencyClaim): Promise<RpcResult<ThreadMeta>> {
      // A create that comes while this thread is being deleted starts once the old rows are gone.
      const removing = this.inFlight.removing;
      if (removing) await removing.catch(() => undefined);
      const removals = this.inFlight.removals;
      // Counted like a call: a delete that comes before the create answered waits for it.
      const created: RpcResult<ThreadMeta> = await this.inFlight
        .run(async () => {
          // A deletion, or a failed create (maybe in an instance before a restart), may have unlisted the
          // id the Worker listed (or found listed: a deleted thread's): a new thread takes its slot under
          // the limit before it is made, one there already (a replay) is listed again past it.
          const fresh = !this.world && !input.ephemeral;
          const claimed = fresh ? await this.listing.claimNew(caller.userId, input.agent ?? "default") : null;
          if (claimed && !claimed.ok) return claimed;
          const made = await this.once(caller, idem, (cut) => this.createOnce(caller, input, threadId, cut), true);
          if (!fresh && made.ok && !made.value.ephemeral) await this.listing.listInAccount(made.value, made.value.createdAt, true);
          return made;
        })
        .catch(rpcFailure);
      // A failed create leaves nothing behind (rows, key, the Worker's listing), decided by the last work
      // out of this lifetime finding no thread (another create may have made it), and not once a removal
      // ran since it began (or runs).
      if (!created.ok && !this.world && this.inFlight.count === 0 && this.inFlight.removing === null && this.inFlight.removals === removals) {
        await deleteAllRows(this.ctx.storage);
        this.store.forget();
        if (this.env.ACCOUNT) await accountOf(this.env.ACCOUNT, caller.userId).removeThread(threadId).catch(() => undefined);
      }
      return created;
    }

    private async createOnce(caller: Caller, input: CreateThreadInput, threadId: string, cut: boolean): Promise<RpcResult<ThreadMeta>> {
      return this.answer(async () => {
        // An earlier create with this key made the thread and was cut before it answered.
        if (cut && this.world && this.world.meta.userId === caller.userId) return this.world.meta;
        // Only the owner learns that its continuation token names a thread already, and which (so `openThread` answers it).
        const exists = ({ meta }: { meta: ThreadMeta }) => (checkAccess(meta.userId, caller, "write"), new WeftError("thread_exists", "a thread with this continuationToken exists already", { threadId: meta.threadId, path: ["continuationToken"] }));
        if (this.world) throw exists(this.world);
        const { meta, script, env: threadEnv, history } = prepareThread(registry, caller, input, threadId);
        // Nothing a thread removed earlier in this instance kept in memory carries into this one.
        this.store.forget();
        migrate(this.ctx.storage);
        const world = this.newWorld(meta);
        await checkNewThread(world, (name) => threadEnv.get(name));
        // The earlier conversation is stored without the secrets the thread has from its start.
        const seeding = history.length > 0 ? await historyRedactor(this.env.ACCOUNT, meta.userId, threadEnv) : null;
        const seeds = seeding ? history.map((m) => seeding.value(m)) : [];
        checkStoredHistory(seeds);
        // Made meanwhile by a create of the same token that got here first.
        if (this.world) throw exists(this.world);
        const seeded = storeNewThread(this.store, { meta, script, env: threadEnv }, input.opening, seeds);
        this.attach(world);
        // Announced before the first wait, so they commit with the rows: a restart at that wait
        // leaves no stored message unannounced. The history was redacted above with every secret
        // the thread holds from its start, the owner's too, so the reload below adds none to it.
        world.emit("thread_created", { threadId, agentId: meta.agentId });
        for (const message of seeded) world.emit("message_created", { message });
        await this.refreshSecrets();
        // A scratch thread removes itself even if the Worker dies before it calls destroy().
        if (meta.ephemeral) await this.alarmClock.set(meta.createdAt + SCRATCH_TTL_MS);
        const unavailable = unavailableTools(world.catalog);
        if (unavailable.length > 0) world.emit("tools_unavailable", { tools: unavailable });
        if (input.opening !== undefined) void this.runner!.resume();
        return meta;
      });
    }

    async info(caller: Caller): Promise<RpcResult<ThreadInfo>> {
      return this.serve(caller, { access: "read" }, async (first, runner) => {
        // Asked first: it may read the owner's account values (WEFT_MODEL at the user level), as
        // remote servers are listed; the thread is asked for again after (it may be removed meanwhile).
        const [models] = await Promise.all([modelsInForce(first), first.callables.prepare(null)]); // and the remote MCP tools offered
        const world = this.guard(caller, "read");
        const lastTurn = this.store.turns.latest();
        return {
          ...world.meta,
          status: runner.status(),
          messageCount: this.store.messages.count(),
          lastSeq: this.events.lastSeq(),
          ...(lastTurn ? { lastTurn } : {}),
          tools: modelTools(world.catalog),
          unavailableTools: [...unavailableTools(world.catalog), ...first.callables.unavailableRemote()],
          ...(world.agentMissing ? { models: [], agentMissing: world.agentMissing } : { models }),
        };
      });
    }

    async usage(caller: Caller) { return this.serve(caller, { access: "read" }, (w) => new ThreadUsageLedger(this.store.storage.sql).read(w.meta.threadId, w.meta.agentId)); }

    async getMessages(caller: Caller, options: GetMessagesOptions) { return this.serve(caller, { access: "read" }, () => this.store.messages.list(options)); }

    async postMessage(caller: Caller, input: PostMessageInput, idem?: IdempotencyClaim) {
      return this.serve<{ queued: boolean; message?: Message }>(caller, { access: "write", idem, env: true }, async (world, runner, taken) => {
        if (input.traceparent !== undefined) world.traceNextTurn(input.traceparent);
        const script = input.script === undefined ? undefined : normalizeScript(input.script, ["script"]);
        if (script && script.length > 0) await checkScriptable(world);
        const message = { content: input.content, ...(input.role ? { role: input.role } : {}), ...(script ? { script } : {}), ...(input.modelSettings ? { modelSettings: input.modelSettings } : {}) };
        return await runner.postMessage(message, () => taken({ queued: true }));
      });
    }

    async listCalls(caller: Caller, options: CallsPageOptions & { limit?: number } = {}) {
      const limit = pageSize("calls", options.limit);
      return this.serve(caller, { access: "read" }, () => callsPage(this.ledger, options, limit, this.secrets.redactor()));
    }

    async getCall(caller: Caller, callId: string) {
      return this.serve(caller, { access: "read" }, () => {
        const call = this.ledger.get(callId);
        if (!call) throw new WeftError("call_not_found", `no call ${quotedValue(callId)} in this thread`, { callId: echoedValue(callId) });
        return publicRecord(call, this.secrets.redactor());
      });
    }

    async approve(caller: Caller, callId: string, argsHash?: string, idem?: IdempotencyClaim) {
      // The approved call runs now, maybe long after the watchdog last fired: it is watched like a direct call.
      return this.serve(caller, { access: "write", idem, env: true, watched: true }, (_w, runner) => runner.decisions.approve(callId, caller.userId, argsHash));
    }

    async deny(caller: Caller, callId: string, reason?: string, idem?: IdempotencyClaim, argsHash?: string) {
      return this.serve(caller, { access: "write", idem, env: true }, (_w, runner) => runner.decisions.deny(callId, caller.userId, reason, argsHash));
    }

    async settle(caller: Caller, callId: string, settlement: Settlement, idem?: IdempotencyClaim) {
      return this.serve(caller, { access: "write", idem, env: true, watched: true }, (_w, runner) => runner.decisions.settle(callId, { ...settlement, settledBy: caller.userId }));
    }

    async listFiles(caller: Caller, page: FilePage = {}) { return this.serve(caller, { access: "read" }, () => listedFiles(this.store.files, this.secrets.redactor(), page)); }

    /** A file of the thread: a capped result's full text, or an attachment (base64 for binary). */
    async getFile(caller: Caller, path: string) {
      return this.serve(caller, { access: "read" }, () => {
        const file = servedFileAt(this.store.files, path, this.secrets.redactor());
        if (!file) throw new WeftError("not_found", `no file ${quotedValue(path)} in this thread`, { path: ["path"] });
        return file;
      });
    }

    async deleteFile(caller: Caller, path: string) {
      return this.serve(caller, { access: "write" }, () => {
        if (!this.store.files.delete(path)) throw new WeftError("not_found", `no file ${quotedValue(path)} in this thread`, { path: ["path"] });
        return { deleted: true };
      });
    }

    async createSchedule(caller: Caller, input: unknown, idem?: IdempotencyClaim) {
      // A schedule due at once may fire in this request: work that may run a call is watched.
      return this.serve<ScheduleInfo>(caller, { access: "write", idem, env: true, watched: true }, (_w, _r, taken) => this.schedules.create(input, caller.userId, taken));
    }

    async listSchedules(caller: Caller, page?: Parameters<ThreadApi["listSchedules"]>[1]) { return this.serve(caller, { access: "read" }, () => this.schedules.page(page)); }

    async cancelSchedule(caller: Caller, scheduleId: string) { return this.serve(caller, { access: "write" }, () => this.schedules.cancel(scheduleId)); }

    // An occurrence now, fired as the alarm fires one; a tool target's call is watched like a direct call.
    async runSchedule(caller: Caller, scheduleId: string, idem?: IdempotencyClaim) { return this.serve(caller, { access: "write", idem, env: true, watched: true }, (w, r) => runScheduleNow(this.schedules, w, r, scheduleId)); }

    async callTool(caller: Caller, input: DirectCallInput, idem?: IdempotencyClaim) {
      // A direct call runs outside any turn; the watchdog finishes it if a crash cuts it.
      return this.serve(caller, { access: "write", idem, env: true, watched: true }, (world, runner) =>
        // Under an Idempotency-Key the id comes from the key: a retry that a restart made
        // necessary reaches the first call, never a second run of the tool.
        idem && input.callId === undefined
          ? callIdKeyOf(this.env.ACCOUNT, caller.userId, () => this.store.meta.secret("call_id_key"))
              .then((key) => keyedCallId(key, caller.userId, idem, input.toolName, (id) => this.store.calls.get(id) !== undefined))
              .then((callId) => directCall(world, runner, { ...input, callId }))
          : directCall(world, runner, input),
      );
    }

    async callToolJson(caller: Caller, input: DirectCallInput, idem?: IdempotencyClaim): Promise<string | RpcFailure> {
      // Serialized after `callTool` cleaned it of secrets; a repeat's kept answer is the outcome itself.
      const result = await this.callTool(caller, input, idem);
      return result.ok ? outcomeText(result.value) : result;
    }

    /** The owner's account is about to store the user's first budgets (src/usage/meter.ts `handOver`; `BudgetWatcher`). */
    async accountBudgetsSet() { return this.world?.meterInUse?.handOver() ?? []; }

    async accountEnvChanged(): Promise<{ live: boolean }> {
      this.userEnv.invalidate();
      // In force before the account answers its write: every answer from here on, reads too, is redacted with the new values.
      if (this.world) await this.refreshSecrets();
      return { live: this.world !== null };
    }

    /** Stops the turn; with `firstTurn` (a parent stopping its child's work), only the thread's first turn. */
    async stop(caller: Caller, firstTurn = false) {
      return this.serve(caller, { access: "write" }, async (_w, runner) => ({ stopped: firstTurn ? runner.firstTurn.stop() : runner.stop() }));
    }

    /**
     * How this thread's first turn stands, for the parent of a child thread (the caller is the
     * parent's owner): with `wait`, once it has ended or waits for a person.
     */
    async childAnswer(caller: Caller, wait: boolean): Promise<RpcResult<ChildAnswer>> {
      return this.serve(caller, { access: "read" }, async (_w, runner) => {
        if (wait && !runner.firstTurn.ended()) {
          await runner.firstTurn.settled();
          // Deleted meanwhile: the rows below may be gone.
          this.guard(caller, "read");
        }
        return runner.firstTurn.answer();
      });
    }

    /**
     * A child thread's turn ended: a call waiting on it may go on, a background run's completion
     * is delivered (src/background/; the caller is this thread's owner). Answers at once.
     */
    async childChanged(caller: Caller): Promise<RpcResult<null>> {
      return this.serve(caller, { access: "write" }, (_w, runner) => {
        void this.schedules.runs!.collect().catch(() => 0).then(() => runner.resume());
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
      return this.serve(caller, { access: "write" }, async () => {
        await this.removeAll();
        return null;
      });
    }

    async scratchCall(caller: Caller, input: CreateThreadInput, threadId: string, call: DirectCallInput, idem?: IdempotencyClaim): Promise<RpcResult<ScratchCallOutcome>> {
      const created = await this.create(caller, { ...input, ephemeral: true }, threadId);
      if (!created.ok && !(idem && created.error.code === "thread_exists")) return created;
      // A DELETE may remove this thread while the call waits, and a retry of the key make it again.
      const world = this.world;
      const mine = () => world !== null && this.world === world && !world.removed;
      if (idem) {
        // Kept whatever the call's end (an error too, to replay it): counted before it runs.
        const counted = await this.listing.countScratch();
        if (!counted.ok) return counted;
      }
      const result = await this.callTool(caller, call, idem);
      // A call that waits for a person keeps its scratch thread, or nobody could approve it.
      const kept = result.ok && outcomeWaitsForPerson(result.value);
      if (kept) {
        if (!mine()) return rpcFailure(cutByRemoval());
        // Over the per-user limit, a call that only waits for its approval (nothing ran) is
        // refused as a create is, with its scratch thread; one that began must stay findable.
        const listed = await this.listing.keepAsSession(!result.ok || result.value.status !== "awaiting_approval");
        if (!listed.ok) {
          if (mine()) await this.removeAll();
          return listed;
        }
      } else if (!idem && mine()) await this.removeAll();
      return result.ok ? { ok: true, value: { ...result.value, kept } } : result;
    }
  };
}
