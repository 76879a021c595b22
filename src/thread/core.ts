/**
 * The Thread Durable Object's lifecycle, under its RPC surface (durable.ts): restoring the thread
 * when the object starts, the watchdog alarm that finishes work a crash cut, removal, WebSockets,
 * and the helpers every RPC answer goes through (access check, secrets, Idempotency-Key).
 * @module
 */
import { DurableThreads } from "./peers.js";
import { DurableObject } from "cloudflare:workers";
import { ERROR_CODES, WeftError } from "../errors.js";
import type { EventPayloads } from "../protocol.js";
import type { Registry } from "../run/agent.js";
import { AccountListing } from "./listing.js";
import { WATCHDOG_MS, integerSetting } from "../config.js";
import { ThreadAlarm } from "./alarm.js";
import type { CrashHook } from "../calls/context.js";
import { PortWorld } from "../run/port-world.js";
import { threadMeterOf } from "../usage/thread-meter.js";
import { BATCH_TAG, Fanout } from "./fanout.js";
import { limitOf } from "../limits.js";
import type { GroupCommit } from "../calls/group-commit.js";
import { ThreadSecrets } from "../secrets/thread-secrets.js";
import { UserEnv } from "../secrets/user-env.js";
import { SCRATCH_TTL_MS, checkAccess, noSuchThread } from "./guard.js";
import { redactLogs } from "../secrets/redact-logs.js";
import { asThreadWork } from "../secrets/log-context.js";
import { InFlight, deleteGraceMs } from "./removal.js";
import { type Caller, type IdempotencyClaim, type RpcResult, rpcFailure } from "../rpc.js";
import { TurnRunner } from "../run/turn-runner.js";
import { closeAll, closeExpired, onSocketMessage, socketExpiry } from "../socket-policy.js";
import { openSocket } from "./sockets.js";
import { deleteAllRows, hasTables, migrate, migrateIfMade } from "./store/migrations.js";
import { ThreadStore } from "./store/index.js";
import { SqliteLedger } from "./store/ledger.js";
import { SqliteEventSink } from "./store/sink.js";
import type { ThreadMeta } from "../ports/store.js";
import { schedulesOf } from "../schedules/host.js";
import type { ThreadSchedules } from "../schedules/schedules.js";
import { log } from "../log.js";

/** `taken` of a request without an Idempotency-Key: nothing to keep. */
const ignoreAnswer = (): void => undefined;

/** The bindings weft expects on the Worker: `THREAD`, `ACCOUNT`, plus any vars and secrets. */
export interface WeftEnv {
  THREAD: DurableObjectNamespace;
  /** The UserAccount namespace; without it there are no per-user env values or thread lists. */
  ACCOUNT?: DurableObjectNamespace;
  [name: string]: unknown;
}

/** How an RPC method reaches the thread (see `ThreadObject.serve`). */
export interface ServeOptions {
  /** What the caller must be allowed: reading the thread, or acting on it. */
  access: "read" | "write";
  /** The request's Idempotency-Key: a repeat gets the first answer. */
  idem?: IdempotencyClaim | undefined;
  /** The work may read the owner's env: it is reloaded first. */
  env?: boolean;
  /** The work may run a call: it runs under the watchdog. */
  watched?: boolean;
}

/** A thread's Durable Object without its RPC methods: storage, its world (the ports, built here), alarm and sockets. */
export abstract class ThreadObject extends DurableObject<WeftEnv> {
  protected readonly store: ThreadStore;
  /** The thread's `RunWorld` over its ports; null before the thread is created and once it is removed. */
  protected world: PortWorld | null = null;
  protected runner: TurnRunner | null = null;
  protected readonly userEnv: UserEnv;
  protected readonly secrets: ThreadSecrets;
  protected readonly alarmClock: ThreadAlarm;
  /** The call journal with its commit machinery (held rows, settle window, group commit). */
  protected readonly ledger: SqliteLedger;
  /** Where events go: redacted, stored with their seq, sent to every socket (held ones behind it). */
  protected readonly events: SqliteEventSink;
  private readonly fanout: Fanout;
  /** The thread in its owner's account: counted, listed, a scratch thread kept (listing.ts). */
  protected readonly listing: AccountListing;
  /** Direct calls, and runs a person's decision started, running in this instance now (see `watched`); the removal under way. */
  protected readonly inFlight = new InFlight();
  /** The thread's schedules (src/schedules/), fired by this object's one alarm. */
  protected readonly schedules: ThreadSchedules;

  constructor(
    ctx: DurableObjectState,
    env: WeftEnv,
    protected readonly registry: Registry,
  ) {
    super(ctx, env);
    this.store = new ThreadStore(ctx.storage);
    this.ledger = new SqliteLedger(this.store, () => ctx.storage.sync());
    this.fanout = new Fanout({ all: () => ctx.getWebSockets(), batched: () => ctx.getWebSockets(BATCH_TAG), expiresAt: socketExpiry, expire: closeExpired }, limitOf(env, "wsCharsPerConnection"), () => this.store.events.holding());
    this.events = new SqliteEventSink(
      this.store,
      (type, data) => this.secrets.event(type as keyof EventPayloads, data as EventPayloads[keyof EventPayloads]),
      (frame) => this.fanout.send(frame),
    );
    // The watchdog's period: `WEFT_WATCHDOG_MS` (a positive integer of milliseconds), read once (the env is fixed for an instance).
    this.alarmClock = new ThreadAlarm(ctx.storage, integerSetting(env, "WEFT_WATCHDOG_MS", 1) ?? WATCHDOG_MS);
    this.listing = new AccountListing({
      env,
      threadId: ctx.id.toString(),
      meta: () => this.world!.meta,
      alive: (meta) => this.world?.meta === meta && !this.world.removed,
      writeMeta: (meta) => this.store.meta.write(meta),
      inFlight: this.inFlight,
      removeAll: () => this.removeAll(),
    });
    // Schedules share the one alarm through their due-time index (src/schedules/).
    this.schedules = schedulesOf(ctx.storage, () => hasTables(ctx.storage), this.alarmClock, () => (this.gone ? null : { world: this.world!, runner: this.runner! }), (work) => this.inFlight.run(work), this.crashHook() ? () => this.world?.crashHook : null);
    this.store.calls.onUnfinishedRow = () => this.alarmClock.watchRow(this.inFlight.count <= 1 && !this.runner?.active);
    // A value a tool sets is a secret from that moment, in logs too.
    this.store.env.onChange = () => void this.secrets.redactor();
    this.userEnv = new UserEnv(() => this.env.ACCOUNT, () => this.world?.meta.userId, () => ctx.id.toString());
    this.secrets = new ThreadSecrets(
      this.store,
      env,
      this.userEnv,
      () => (this.world ? { agent: this.world.agent.env, prompts: registry.prompts ?? {} } : null),
      () => this.world !== null,
    );
    redactLogs(this.secrets);
    // The restore and the turn it resumes are this thread's work, as its entries are (log-context.ts).
    void asThreadWork(this.secrets, () => ctx.blockConcurrencyWhile(async () => {
      if (!migrateIfMade(ctx.storage)) return;
      const meta = this.store.wake(this.schedules.wakeSql(), (values) => this.schedules.knowAtWake(values));
      if (!meta) return;
      this.attach(this.newWorld(meta));
      await this.refreshSecrets();
      await this.schedules.restore();
      // Work a crash left behind is finished by the alarm, even if no client ever calls again.
      if (this.runner!.hasUnfinishedWork() && !(await this.alarmClock.isSet())) await this.alarmClock.set(Date.now() + 10);
    }).then(() => {
      // A turn the restart cut (or one waiting with a stop kept) goes on now, whatever woke us. Left to the alarm alone it could
      // wait for the runtime's retry backoff (2 s, 4 s, ... then dropped) when the restart also
      // cut the alarm handler that was resuming it before that handler re-armed. A failure here
      // (this instance aborted again meanwhile) is left to the alarm armed above.
      if (this.runner?.goesOnByItself()) this.runner.resume().catch(() => undefined);
    }));
  }

  /**
   * Reloads the owner's env and rebuilds the redactor, so even console output is covered. A
   * promise only when the account has to be asked (the kept values are usually current).
   */
  protected refreshSecrets(): Promise<void> | undefined {
    const reloading = this.userEnv.refresh();
    if (reloading) return reloading.then(() => void this.secrets.redactor());
    this.secrets.redactor();
    return undefined;
  }

  protected attach(world: PortWorld): void {
    this.world = world;
    world.schedules = this.schedules;
    world.crashHook = this.crashHook();
    this.runner = new TurnRunner(world, (delayMs) => void this.alarmClock.set(Date.now() + delayMs), this.alarmClock.periodMs);
  }

  /**
   * Runs a direct call, or a person's decision that may run a call (approve, settle to retry),
   * under the watchdog, which finishes a call a crash cut with no client request (its alarm
   * commits with the row left unfinished: `CallStore.onUnfinishedRow`). The alarm's time is kept
   * in memory, read once per instance, so after the first call arming reads no storage and awaits
   * nothing. Counted in `inFlight`, which a removal waits for (see `removeAll`); requests that
   * come while a commit is unconfirmed share the next one (`GroupCommit.batched`).
   */
  protected watched<T>(run: () => Promise<T>): Promise<T> {
    return this.alarmClock.known ? this.inFlight.runBatched(this.commits, run) : this.alarmClock.load().then(() => this.inFlight.runBatched(this.commits, run));
  }

  /** Test seam of the crash matrix: a subclass returns a hook called at each crash point. */
  protected crashHook(): CrashHook | null {
    return null;
  }

  /** Whether requests find no thread here: none was made, or it is being removed (`removeAll`). */
  private get gone(): boolean {
    return !this.world || this.inFlight.removing !== null;
  }

  /** The world of the thread `meta` describes, over this object's SQLite ports. */
  protected newWorld(meta: ThreadMeta): PortWorld {
    return new PortWorld(
      {
        tables: this.store,
        ledger: this.ledger,
        events: this.events,
        peers: new DurableThreads(this.env as { THREAD?: DurableObjectNamespace; ACCOUNT?: DurableObjectNamespace }),
        registry: this.registry,
        workerEnv: this.env,
        userEnv: this.userEnv,
        redactor: () => this.secrets.redactor(),
        wakeSoon: () => void this.alarmClock.set(Date.now() + 50),
        meter: (world, tracer) => threadMeterOf(world, this.ctx.storage.sql, tracer, (work) => this.ctx.waitUntil(work)),
      },
      meta,
    );
  }

  /** The thread's syncs (the ledger's group commit; tests read `syncs`). */
  protected get commits(): GroupCommit {
    return this.ledger.commits;
  }

  /** The thread's world, when `caller` may reach this thread for `access`. */
  protected guard(caller: Caller, access: "read" | "write"): PortWorld {
    if (this.gone) throw noSuchThread();
    const world = this.world!;
    checkAccess(world.meta.userId, caller, access);
    return world;
  }

  /** Runs an RPC method; its answer (value or error) leaves without any secret. */
  protected async answer<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
    // `rpc`'s rule, in this one async step (every RPC passes here).
    let result: RpcResult<T>;
    try {
      result = { ok: true, value: await fn() };
    } catch (e) {
      result = rpcFailure(e);
    }
    // The redactor is taken after the work: it may have read new account values or set a secret.
    return this.secrets.redactor().value(result);
  }

  /**
   * The one way an RPC method reaches the thread: the Idempotency-Key (`how.idem`, see `once`),
   * the access check (`guard`), the owner's env reloaded first for work that may read it
   * (`how.env`; awaiting only when the account must be asked), the watchdog over work that may
   * run a call (`how.watched`, see `watched`), and an answer without any secret (`answer`).
   * `fn` calls `taken(answer)` in the transaction of its effect, if it has one (see `IdempotencyStore.taken`).
   */
  protected serve<T>(caller: Caller, how: ServeOptions, fn: (world: PortWorld, runner: TurnRunner, taken: (answer: NoInfer<T>) => void) => T | Promise<T>): Promise<RpcResult<T>> {
    return how.idem ? this.once(caller, how.idem, () => this.serveNow(caller, how, fn)) : this.serveNow(caller, how, fn);
  }

  /** `serve` past the Idempotency-Key. */
  private serveNow<T>(caller: Caller, how: ServeOptions, fn: (world: PortWorld, runner: TurnRunner, taken: (answer: NoInfer<T>) => void) => T | Promise<T>): Promise<RpcResult<T>> {
    const idem = how.idem;
    // Made only for a keyed request: every direct call passes here.
    const taken = idem ? (value: T) => this.store.idempotency.taken(caller.userId, idem, this.secrets.redactor().value({ ok: true, value })) : ignoreAnswer;
    return this.answer(() => {
      const world = this.guard(caller, how.access);
      const reloading = how.env ? this.refreshSecrets() : undefined;
      const run = (w: PortWorld) => (how.watched ? this.watched(() => Promise.resolve(fn(w, this.runner!, taken))) : fn(w, this.runner!, taken));
      // After a reload the thread is asked for again: it may have been removed meanwhile.
      return reloading ? reloading.then(() => run(this.guard(caller, how.access))) : run(world);
    });
  }

  /**
   * Runs `act` once per Idempotency-Key: a repeat gets the first answer. Answers and final
   * errors are kept; a retryable error frees the key, so the retry acts.
   */
  protected once<T>(caller: Caller, idem: IdempotencyClaim | undefined, act: (cut: boolean) => Promise<RpcResult<T>>, creating = false): Promise<RpcResult<T>> {
    // Without a thread there is nothing to keep a key in (only a create makes one).
    if (!idem || (this.gone && !creating)) return act(false);
    return this.onceKeyed(caller, idem, act);
  }

  /** `once` with a key to keep. */
  private async onceKeyed<T>(caller: Caller, idem: IdempotencyClaim, act: (cut: boolean) => Promise<RpcResult<T>>): Promise<RpcResult<T>> {
    const claimed = await this.answer(() => {
      if (!this.world) migrate(this.ctx.storage);
      else checkAccess(this.world.meta.userId, caller, "write");
      return this.store.idempotency.claim<RpcResult<T>>(caller.userId, idem);
    });
    if (!claimed.ok) return claimed;
    if (claimed.value.state === "answered") return claimed.value.answer;
    const removals = this.inFlight.removals;
    const result = await act(claimed.value.cut);
    // Deleted meanwhile: the key went with the thread's rows, and one made again on this id keeps its own.
    if (this.inFlight.removing !== null || this.inFlight.removals !== removals) return result;
    if (result.ok || !ERROR_CODES[result.error.code].retryable) this.store.idempotency.answer(caller.userId, idem, result);
    else this.store.idempotency.release(caller.userId, idem);
    return result;
  }

  /**
   * Removes the whole thread: rows, files, alarm, sockets. From its first step every request
   * that comes finds no thread (`thread_not_found`, as for one never made) and nothing new starts;
   * a running turn stops (as `POST /threads/:id/stop`). The calls already running (direct ones, a
   * person's decisions, a schedule's occurrences) get `WEFT_DELETE_GRACE_MS` to finish and answer as usual; whatever still
   * runs then is cut (every attempt ends, see `Deadlines.cut`) and answers `thread_not_found` with
   * `details.deleted`. Only then does the owner's account unlist it and do the rows go, so no call
   * writes into a removed thread and each still gets exactly one answer. A second removal
   * meanwhile waits for the first.
   */
  protected removeAll(): Promise<void> {
    return this.inFlight.remove(() => this.remove());
  }

  /** The steps of `removeAll`. */
  private async remove(): Promise<void> {
    const runner = this.runner;
    const meta = this.world?.meta;
    runner?.close();
    await this.inFlight.drain(async () => runner?.settled(), this.world?.calls.deadlines, deleteGraceMs(this.env));
    if (this.world) this.world.removed = true;
    // Its remote MCP sessions end at their servers meanwhile (a DELETE each, within SESSION_END_MS, never failing).
    const sessionsEnded = this.world?.callables.endSessions();
    // Unlisted inside the removal (a create of this id that waits for it lists the new thread
    // after), before the rows go: a crash between the two leaves a thread that a retried delete
    // finds and ends, never an entry naming no thread, which a delete (404) could not remove. A
    // failure to unlist does not stop the deletion; the delete answers it at the end.
    const account = meta && this.listing.ownerAccount(meta);
    const unlistFailure = await account?.removeThread(meta!.threadId).then(() => null, (e: unknown) => ({ e }));
    this.world = null;
    this.runner = null;
    this.store.env.version++;
    await this.alarmClock.delete();
    await deleteAllRows(this.ctx.storage);
    this.inFlight.detach();
    this.store.forget();
    this.schedules.forget();
    this.fanout.socketsChanged();
    closeAll(this.ctx, "thread deleted");
    await sessionsEnded;
    // Gone: the account drops its late notices from now on (named by its lifetime, not before, as it could survive a crash).
    if (!unlistFailure) await (meta && this.listing.goneAccount(meta, this.userEnv.registered))?.removeThread(meta.threadId, meta.createdAt).catch(() => undefined);
    if (unlistFailure) throw unlistFailure.e;
  }

  /** The watchdog: resumes a turn cut by a restart, recovers calls, drains the queue; ends scratch threads. */
  override async alarm(): Promise<void> {
    this.alarmClock.fired();
    if (!this.runner) return;
    // Schedules due now fire first, and the alarm is armed for the next one (src/schedules/).
    if (this.inFlight.removing === null) await this.schedules.fire().catch((e: unknown) => log("error", `weft: firing schedules failed: ${String(e)}`));
    if (!this.runner) return;
    // A removal under way starts nothing, but its rows stay until it ends: a crash that cuts it
    // leaves them, unfinished calls among them, for the alarm to finish.
    if (this.runner.active || this.inFlight.removing !== null) {
      void this.alarmClock.set(Date.now() + this.alarmClock.periodMs);
      return;
    }
    const meta = this.world!.meta;
    // A scratch thread without a key is removed in its call's round trip: one its alarm finds
    // outlived it (a restart cut the call, or the call runs long). Counted from now, past the
    // limit too (it exists already and holds a call that began); its removal frees the slot. A
    // counted one is claimed again (nothing added when held): a restart may have cut its keep's listing.
    if (meta.ephemeral) await this.listing.takeScratchSlot(true);
    if (meta.ephemeral && Date.now() >= meta.createdAt + SCRATCH_TTL_MS && !this.runner.busy && !this.runner!.hasUnfinishedWork() && !this.store.calls.waitForPerson()) {
      await this.removeAll();
      return;
    }
    if (!this.runner!.hasWorkToResume()) {
      // The usual case: the calls it watched over finished. A thread in steady use renews its
      // alarm from its calls before it fires; one in use now and then (calls since the last
      // alarm) gets it armed again here, outside any call, so its next calls find it set and
      // write none. An idle thread writes nothing and stops, after at most one more alarm. A
      // scratch thread keeps the alarm that removes it.
      const watching = this.alarmClock.wanted ? Date.now() + this.alarmClock.periodMs : Infinity;
      if (meta.ephemeral) await this.alarmClock.set(Math.min(watching, meta.createdAt + SCRATCH_TTL_MS));
      else if (watching < Infinity) await this.alarmClock.rearm(watching);
      return;
    }
    const runner = this.runner;
    // Armed before recovering: if recovery itself is cut by a crash, the next alarm tries again.
    await this.alarmClock.set(Date.now() + this.alarmClock.periodMs);
    await this.refreshSecrets();
    await runner.resume();
    // Removed meanwhile (the resumption did nothing more once it began): nothing is left to watch.
    if (this.runner !== runner || this.inFlight.removing !== null) return;
    // A direct call that recovery parked waits for a person, whose client never got its answer.
    if (meta.ephemeral && this.store.calls.waitForPerson()) await this.listing.keepAsSession(true);
    if (!runner.active && !this.runner!.hasUnfinishedWork()) {
      if (meta.ephemeral) await this.alarmClock.set(meta.createdAt + SCRATCH_TTL_MS);
      else await this.alarmClock.delete();
    }
  }

  override async fetch(request: Request): Promise<Response> {
    return openSocket(this.ctx, this.events, this.fanout, request, (caller) => this.guard(caller, "read").meta, this.env);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    onSocketMessage(ws, message, this.env);
  }

  override async webSocketError(): Promise<void> {
    this.fanout.socketsChanged();
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.fanout.socketsChanged();
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // Already closed.
    }
  }
}
