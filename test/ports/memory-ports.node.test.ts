/**
 * The ports' conformance suites over the memory implementations, in plain Node: the same tests
 * the SQLite implementations pass in workerd (test/ports/sqlite-ports.test.ts).
 */
import { MemoryEventSink } from "../../src/memory/events.js";
import { MemoryLedger } from "../../src/memory/ledger.js";
import { MemoryTables } from "../../src/memory/store.js";
import { MemoryThreads } from "../../src/memory/threads.js";
import { eventsConformance } from "./events.conformance.js";
import { ledgerConformance } from "./ledger.conformance.js";
import { storeConformance } from "./store.conformance.js";
import { threadsConformance } from "./threads.conformance.js";

ledgerConformance("memory (Node)", async (sync, fn) => {
  const ledger = new MemoryLedger(sync);
  await fn({ ledger, written: (callId) => ledger.written(callId) });
});

eventsConformance("memory (Node)", (redact, broadcast, fn) => fn(new MemoryEventSink(redact, broadcast)));

storeConformance("memory (Node)", (fn) => fn(new MemoryTables()));

/** 64 random hex digits: a thread id no memory thread has. */
const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");

threadsConformance("memory (Node)", () => ({
  threads: new MemoryThreads({ researcher: (opening) => (opening === "What is 6x7?" ? "The answer is 42." : "I do not know.") }),
  agent: "researcher",
  question: "What is 6x7?",
  expected: "The answer is 42.",
  neverMade: randomId,
}));
