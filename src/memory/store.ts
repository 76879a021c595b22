/**
 * The store port in memory, for plain Node: the thread's tables as plain data, with the SQLite
 * tables' rules (sizes, JSON forms, ids, counters) taken from the same functions, and
 * `atomically` rolling every table back on a throw.
 * @module
 */
import { randomHex } from "../bytes.js";
import { checkStoredBytes } from "../limits.js";
import type { EnvTable, EnvType, FileInfo, FileTable, KvTable, MetaTable, ReceivedLevel, ThreadMeta, ThreadTables } from "../ports/store.js";
import { withContent } from "../content/file-content.js";
import { kvText } from "../thread/store/kv.js";
import type { MemoryData } from "./data.js";
import { MemoryMessages } from "./store-messages.js";
import { MemoryTurns } from "./store-turns.js";

function empty(): MemoryData {
  return { meta: null, counters: {}, secrets: {}, messages: [], kv: {}, env: {}, received: [], files: {}, turns: [], inbox: [] };
}

/** A JSON round trip: what a row gives back (a fresh copy, undefined members gone). */
export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

class MemoryMeta implements MetaTable {
  constructor(private readonly data: () => MemoryData) {}
  read(): ThreadMeta | undefined {
    const text = this.data().meta;
    return text === null ? undefined : (JSON.parse(text) as ThreadMeta);
  }
  write(meta: ThreadMeta): void {
    this.data().meta = JSON.stringify(meta);
  }
  counter(name: string): number {
    return this.data().counters[name] ?? 0;
  }
  bump(name: string, by: number): void {
    const counters = this.data().counters;
    counters[name] = (counters[name] ?? 0) + by;
  }
  secret(name: string): string {
    return (this.data().secrets[name] ??= randomHex(32));
  }
}

class MemoryKv implements KvTable {
  constructor(private readonly data: () => MemoryData) {}
  get<T = unknown>(key: string): T | null {
    const text = this.data().kv[key];
    return text === undefined ? null : (JSON.parse(text) as T);
  }
  set(key: string, value: unknown): void {
    this.data().kv[key] = kvText(key, value);
  }
}

class MemoryEnv implements EnvTable {
  version = 0;
  constructor(private readonly data: () => MemoryData) {}
  get(name: string): { value: string; type: EnvType } | undefined {
    const row = this.data().env[name];
    return row && { ...row };
  }
  all(): Array<[string, { value: string; type: EnvType }]> {
    return Object.entries(this.data().env).map(([name, row]) => [name, { ...row }]);
  }
  set(name: string, value: string, type?: EnvType): void {
    checkStoredBytes(value, ["env", name]);
    this.data().env[name] = { value, type: type ?? this.get(name)?.type ?? "secret" };
    this.version++;
  }
  received(): Array<{ name: string; level: ReceivedLevel }> {
    return this.data().received.map((k) => {
      const [name, level] = k.split("\0") as [string, ReceivedLevel];
      return { name, level };
    });
  }
  receive(name: string, level: ReceivedLevel): void {
    const received = this.data().received;
    const key = `${name}\0${level}`;
    if (received.includes(key)) return;
    received.push(key);
    this.version++;
  }
}

class MemoryFiles implements FileTable {
  constructor(private readonly data: () => MemoryData) {}
  write(path: string, data: string, mimeType: string, size: number, now = Date.now()): FileInfo {
    const info = { path, mimeType, size, createdAt: now };
    this.data().files[path] = { info, data };
    return { ...info };
  }
  info(path: string): FileInfo | undefined {
    const file = this.data().files[path];
    return file && { ...file.info };
  }
  read(path: string): string | undefined {
    return this.data().files[path]?.data;
  }
  content(path: string): (FileInfo & { data: string; encoding: "utf-8" | "base64" }) | undefined {
    const file = this.data().files[path];
    return file && withContent({ ...file.info }, file.data);
  }
  redactedFor(): string | undefined {
    return this.data().filesRedactedFor;
  }
  markRedactedFor(fingerprint: string): void {
    this.data().filesRedactedFor = fingerprint;
  }
  list(limit = Number.POSITIVE_INFINITY, after?: string): FileInfo[] {
    return Object.values(this.data().files)
      .map((f) => ({ ...f.info }))
      .filter((f) => after === undefined || f.path > after)
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .slice(0, limit);
  }
  any(): boolean {
    return Object.keys(this.data().files).length > 0;
  }
  delete(path: string): boolean {
    const files = this.data().files;
    if (!(path in files)) return false;
    delete files[path];
    return true;
  }
}

/** A thread's tables in memory. */
export class MemoryTables implements ThreadTables {
  private data = empty();
  private readonly now = (): MemoryData => this.data;
  readonly meta = new MemoryMeta(this.now);
  readonly messages = new MemoryMessages(this.now, this.meta);
  readonly kv = new MemoryKv(this.now);
  readonly env = new MemoryEnv(this.now);
  readonly files = new MemoryFiles(this.now);
  readonly turns = new MemoryTurns(this.now);

  atomically<T>(fn: () => T): T {
    const saved = structuredClone(this.data);
    try {
      return fn();
    } catch (e) {
      this.data = saved;
      // A reader's kept view of the env may describe rows that are gone.
      this.env.version++;
      throw e;
    }
  }
}
