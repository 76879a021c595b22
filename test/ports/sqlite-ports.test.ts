/**
 * The ports' conformance suites over the SQLite implementations, each inside a real Durable
 * Object's storage (a fresh Thread object per test), and the threads port over Durable Object RPC.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { migrate } from "../../src/thread/store/migrations.js";
import { ThreadStore } from "../../src/thread/store/index.js";
import { SqliteLedger } from "../../src/thread/store/ledger.js";
import { SqliteEventSink } from "../../src/thread/store/sink.js";
import { DurableThreads } from "../../src/thread/peers.js";
import { eventsConformance } from "./events.conformance.js";
import { ledgerConformance } from "./ledger.conformance.js";
import { storeConformance } from "./store.conformance.js";
import { threadsConformance } from "./threads.conformance.js";

const bindings = env as unknown as { THREAD: DurableObjectNamespace; ACCOUNT: DurableObjectNamespace };

/** Runs `fn` inside a fresh Thread object, over its migrated storage. */
function inFreshObject(fn: (storage: DurableObjectStorage) => Promise<void>): Promise<void> {
  const ns = bindings.THREAD;
  return runInDurableObject(ns.get(ns.newUniqueId()), async (_instance, state) => {
    migrate(state.storage);
    await fn(state.storage);
  });
}

ledgerConformance("SQLite (workerd)", (sync, fn) =>
  inFreshObject(async (storage) => {
    const written = (callId: string) => storage.sql.exec<{ status: string }>("SELECT status FROM calls WHERE call_id = ?", callId).toArray()[0]?.status ?? null;
    await fn({ ledger: new SqliteLedger(new ThreadStore(storage), sync), written });
  }),
);

eventsConformance("SQLite (workerd)", (redact, broadcast, fn) => inFreshObject((storage) => fn(new SqliteEventSink(new ThreadStore(storage), redact, broadcast))));

storeConformance("SQLite (workerd)", (fn) => inFreshObject((storage) => fn(new ThreadStore(storage))));

threadsConformance("Durable Object RPC (workerd)", () => ({
  threads: new DurableThreads(bindings),
  agent: "researcher",
  question: "What is 6x7?",
  expected: "The answer is 42.",
  neverMade: () => bindings.THREAD.newUniqueId().toString(),
}));
