/**
 * Where file schedules run: the `FileSchedules` Durable Object (binding `SCHEDULES`, one object
 * named `deployment`) takes every `agents/schedules/<name>.ts` of the deployed registry up in its
 * own thread (files.ts) and ends those a deploy removed. The Worker's `scheduled` handler (a cron
 * trigger, every minute in wrangler.toml) asks it to sync; a sync finds the registry as it was at
 * the last one and writes nothing, so only the first after a deploy reaches the threads. From
 * there each thread's own alarm fires its schedule, exactly once per occurrence. A sync that
 * fails in part is not recorded and arms this object's alarm to try again in a minute; each file
 * taken up is recorded on its own, so the retry asks only the threads and accounts that failed.
 * The object is shared by every owner: one owner whose file cannot be taken up (an account at its
 * thread limit, or kept busy) must cost another owner nothing, so a run-now asks for its own file only.
 * @module
 */
import { DurableObject } from "cloudflare:workers";
import { claimThread, accountOf } from "../account/api.js";
import { errorMessage } from "../errors.js";
import type { Registry } from "../run/agent.js";
import type { Caller, RpcResult } from "../rpc.js";
import type { CreateThreadInput } from "../thread/api.js";
import type { ScheduleInfo } from "./info.js";
import { type FileSchedule, fileScheduleOf, fileSchedulesOf, fileThreadName } from "./files.js";
import { fnv1a } from "./timing.js";
import { log } from "../log.js";
import { attributeEntries } from "../secrets/log-context.js";
import { LogOwner, registryDefaults } from "../secrets/log-owners.js";

/** The bindings a sync uses. */
export interface FileScheduleEnv {
  THREAD: DurableObjectNamespace;
  ACCOUNT?: DurableObjectNamespace;
  SCHEDULES?: DurableObjectNamespace;
  [name: string]: unknown;
}

/** The part of a Thread stub a sync uses. */
interface ThreadStub {
  create(caller: Caller, input: CreateThreadInput, threadId: string): Promise<RpcResult<unknown>>;
  createSchedule(caller: Caller, input: unknown): Promise<RpcResult<ScheduleInfo>>;
}

/** One file schedule's thread as a sync left it. */
interface Synced {
  name: string;
  owner: string;
}

/** What a sync did: `changed` false when the registry was as at the last sync (nothing was asked). */
export interface SyncReport {
  changed: boolean;
  /** `<name>: <scheduleId> <status>` for each file schedule the threads hold now, and each one ended. */
  schedules: string[];
  /** `<name>: <why>` for each thread that could not be reached; the sync is tried again. */
  failed: string[];
}

/** How long after a sync that failed in part it is tried again (ms). */
const RETRY_MS = 60_000;

/** The storage key of the version (its `scheduleId`) of file `name` last taken up in its thread. */
const takenKey = (name: string) => `taken:${name}`;

/** The caller a sync acts as on a file schedule's thread: its owner. */
const ownerCaller = (owner: string): Caller => ({ userId: owner, name: "file schedules", roles: [], admin: false });

/** Builds the `FileSchedules` Durable Object class for a registry (the class must be a module export). */
export function createFileSchedulesClass(registry: Registry) {
  return class FileSchedules extends DurableObject<FileScheduleEnv> {
    // Each entry runs as this object's work: its console lines pass its own log redactor, of what
    // its code can read (the Worker's secrets, the registry's secret defaults). A thread's answer
    // it logs was cleaned by that thread of every secret it holds; an account's names none.
    static { attributeEntries(this.prototype, (schedules) => schedules.logs); }
    private readonly logs = new LogOwner(this.env, { version: () => 0, secrets: () => registryDefaults(registry) });
    private syncing: Promise<SyncReport> | null = null;

    /** Takes the registry's file schedules up in their threads, once per registry (concurrent asks share one sync). */
    sync(): Promise<SyncReport> {
      this.syncing ??= this.syncOnce().finally(() => (this.syncing = null));
      return this.syncing;
    }

    /**
     * Makes sure the current version of file `name` is taken up, for a run of it now: one read when
     * it was, else that file alone is taken up. Never waits for another file's owner (their account,
     * their thread) nor for a sync under way. A failure is logged, as a sync's; the run then finds
     * no such thread or schedule.
     */
    async takeUpFile(name: string): Promise<void> {
      const file = fileScheduleOf(registry, name);
      if (!file || (await this.ctx.storage.get<string>(takenKey(name))) === file.scheduleId) return;
      try {
        await this.takeUp(file);
      } catch (e) {
        log("error", `weft: file schedule ${name}: ${errorMessage(e)}`);
      }
    }

    override async alarm(): Promise<void> {
      await this.sync();
    }

    private async syncOnce(): Promise<SyncReport> {
      const files = fileSchedulesOf(registry);
      const version = fnv1a(JSON.stringify(files.map((f) => [f.name, f.owner, f.scheduleId]))).toString(16);
      if ((await this.ctx.storage.get<string>("version")) === version) return { changed: false, schedules: [], failed: [] };
      const before = (await this.ctx.storage.get<Synced[]>("threads")) ?? [];
      const report: SyncReport = { changed: true, schedules: [], failed: [] };
      const step = async (name: string, work: () => Promise<string>) => {
        try {
          report.schedules.push(`${name}: ${await work()}`);
        } catch (e) {
          report.failed.push(`${name}: ${errorMessage(e)}`);
        }
      };
      const taken = await this.ctx.storage.list<string>({ prefix: takenKey("") });
      for (const file of files) {
        if (taken.get(takenKey(file.name)) !== file.scheduleId) await step(file.name, () => this.takeUp(file));
      }
      // Threads a removed (or moved: another owner, another agent) file ran in: their schedule ends.
      for (const old of before) {
        if (files.some((f) => f.name === old.name && f.owner === old.owner)) continue;
        await step(old.name, () => this.endIn(old));
      }
      const current = new Set(files.map((f) => takenKey(f.name)));
      const stale = [...taken.keys()].filter((key) => !current.has(key));
      if (stale.length > 0) await this.ctx.storage.delete(stale);
      if (report.failed.length > 0) {
        // What was taken up stays, recorded: the sync runs again and takes up only the rest.
        await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
        for (const line of report.failed) log("error", `weft: file schedule ${line}`);
        return report;
      }
      const threads: Synced[] = files.map((f) => ({ name: f.name, owner: f.owner }));
      await this.ctx.storage.put({ version, threads });
      // Once per deploy (later syncs find nothing changed): what the deployment's schedules are now.
      if (report.schedules.length > 0) log("log", `weft: file schedules synced: ${report.schedules.join(", ")}`);
      return report;
    }

    private thread(name: string): { stub: ThreadStub; threadId: string } {
      const id = this.env.THREAD.idFromName(name);
      return { stub: this.env.THREAD.get(id) as unknown as ThreadStub, threadId: id.toString() };
    }

    /** Makes the file's thread (counted in its owner's account) unless it exists, and its schedule there. */
    private async takeUp(file: FileSchedule): Promise<string> {
      const { stub, threadId } = this.thread(file.threadName);
      const caller = ownerCaller(file.owner);
      if (this.env.ACCOUNT) {
        const claimed = await claimThread(accountOf(this.env.ACCOUNT, file.owner), this.env, { threadId, agentId: file.agent, createdAt: Date.now() });
        if (!claimed.ok) throw new Error(`${claimed.error.code}: ${claimed.error.message}`);
      }
      const created = await stub.create(caller, { agent: file.agent }, threadId);
      if (!created.ok && created.error.code !== "thread_exists") throw new Error(`${created.error.code}: ${created.error.message}`);
      const adopted = await this.adopt(stub, caller, file.name);
      await this.ctx.storage.put(takenKey(file.name), file.scheduleId);
      return adopted;
    }

    /** Ends the file's schedule in a thread it no longer runs in. */
    private async endIn(old: Synced): Promise<string> {
      const { stub } = this.thread(fileThreadName(old.name, old.owner));
      return this.adopt(stub, ownerCaller(old.owner), old.name, true);
    }

    private async adopt(stub: ThreadStub, caller: Caller, name: string, ending = false): Promise<string> {
      const answer = await stub.createSchedule(caller, { file: name });
      // An ended file's thread that is gone (deleted by its owner) or never held it: nothing runs there.
      if (!answer.ok && ending && (answer.error.code === "thread_not_found" || answer.error.code === "schedule_not_found")) return "gone";
      if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`);
      return `${answer.value.scheduleId} ${answer.value.status}`;
    }
  };
}

/**
 * `POST /schedules/files/:name/run`'s first step: asks the deployment's `FileSchedules` object to
 * take up file `name` if its current version is not yet (see `takeUpFile`); nothing without a
 * `SCHEDULES` binding.
 */
export async function takeUpFileSchedule(env: FileScheduleEnv, name: string): Promise<void> {
  const ns = env.SCHEDULES;
  if (ns) await (ns.get(ns.idFromName("deployment")) as unknown as { takeUpFile(name: string): Promise<void> }).takeUpFile(name);
}

/**
 * The Worker's `scheduled` handler's work: asks the deployment's `FileSchedules` object to sync.
 * Without a `SCHEDULES` binding file schedules cannot run, which is said once per isolate.
 */
export async function syncFileSchedules(env: FileScheduleEnv, registry: Registry): Promise<SyncReport | null> {
  if (!env.SCHEDULES) {
    if (Object.keys(registry.schedules ?? {}).length > 0 && !warned) {
      warned = true;
      log("warn", "weft: agents/schedules/ has schedules but the Worker has no SCHEDULES Durable Object binding: they do not run (see docs/schedules.md)");
    }
    return null;
  }
  const ns = env.SCHEDULES;
  return (ns.get(ns.idFromName("deployment")) as unknown as { sync(): Promise<SyncReport> }).sync();
}
let warned = false;
