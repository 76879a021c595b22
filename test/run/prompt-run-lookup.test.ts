/**
 * A nested prompt run finds its own messages by its call id (an index seek): a thread whose
 * depth 1 holds thousands of messages of other prompt calls reads about as many rows for one
 * more prompt call as a thread without them.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate } from "../../src/thread/store/migrations.js";
import { callsOf, countRows, createThread, rawStub, runTurn } from "../helpers.js";

const OTHER_RUNS = 400;
const MESSAGES_PER_RUN = 10;

/** Stores `runs` finished nested runs of other prompt calls at depth 1, as a long-lived thread has them. */
async function pastRuns(threadId: string, runs: number): Promise<void> {
  await runInDurableObject(rawStub(threadId), (instance: any, state) => {
    state.storage.transactionSync(() => {
      for (let r = 0; r < runs; r++) {
        for (let i = 0; i < MESSAGES_PER_RUN; i++) {
          const role = i === 0 ? "user" : i % 2 ? "assistant" : "tool";
          instance.store.messages.append({
            role,
            content: `past run ${r} message ${i}`,
            depth: 1,
            metadata: { promptCall: `past_${r}` },
            ...(role === "tool" ? { toolCallId: `past_${r}_${i}`, name: "inspect_execution" } : {}),
          });
        }
      }
    });
  });
}

/** Rows SQLite reads (workerd's `cursor.rowsRead`) while `work` runs, over every query of the thread. */
async function rowsReadDuring(threadId: string, work: () => Promise<void>): Promise<number> {
  const counter = await countRows(threadId);
  await work();
  return counter.read();
}

/** A turn whose one step calls the summarize prompt, whose nested run answers at once. */
const promptTurn = (callId: string) => [{ toolCalls: [{ id: callId, name: "summarize", arguments: { input: "a long text" } }] }, { text: "summary: short" }, { text: "done" }];

describe("a prompt call's nested run", () => {
  it("reads its own messages by call id: thousands of other runs' messages at its depth cost no extra rows", async () => {
    const fresh = await createThread({ agent: "nested" });
    const old = await createThread({ agent: "nested" });
    await pastRuns(old, OTHER_RUNS);
    const freshRows = await rowsReadDuring(fresh, () => runTurn(fresh, "summarise", promptTurn("s1")));
    const oldRows = await rowsReadDuring(old, () => runTurn(old, "summarise", promptTurn("s1")));
    for (const id of [fresh, old]) expect((await callsOf(id)).find((c) => c.callId === "s1")).toMatchObject({ status: "succeeded", result: { result: "summary: short" } });
    // Without the index every lookup of the run scans all 4000 messages at depth 1.
    expect(oldRows).toBeLessThan(freshRows + 200);
  });
});

describe("the migration that indexes nested runs by call id", () => {
  it("fills the call id of nested messages stored before it, so runs cut before an upgrade are found", async () => {
    const ns = (env as unknown as { THREAD: DurableObjectNamespace }).THREAD;
    const stub = ns.get(ns.newUniqueId());
    const found = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      // The schema as it stood before: every migration up to the one under test.
      const before = MIGRATIONS.findIndex((m) => m.includes("messages_by_prompt_call"));
      sql.exec("CREATE TABLE weft_schema (version INTEGER NOT NULL)");
      sql.exec("INSERT INTO weft_schema (version) VALUES (?)", before);
      for (const m of MIGRATIONS.slice(0, before)) sql.exec(m);
      const insert = "INSERT INTO messages (role, content, silent, metadata, depth, created_at) VALUES (?, ?, 0, ?, ?, 0)";
      sql.exec(insert, "user", "top", null, 0);
      sql.exec(insert, "user", "nested", JSON.stringify({ promptCall: "call_1" }), 1);
      sql.exec(insert, "assistant", "nested answer", JSON.stringify({ promptCall: "call_1", queued: true }), 1);
      sql.exec(insert, "user", "other", JSON.stringify({ promptCall: "call_2" }), 2);
      migrate(state.storage);
      return sql.exec<{ content: string; prompt_call: string | null }>("SELECT content, prompt_call FROM messages ORDER BY id").toArray();
    });
    expect(found).toEqual([
      { content: "top", prompt_call: null },
      { content: "nested", prompt_call: "call_1" },
      { content: "nested answer", prompt_call: "call_1" },
      { content: "other", prompt_call: "call_2" },
    ]);
  });
});
