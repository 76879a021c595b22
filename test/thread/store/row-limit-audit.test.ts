import { describe, expect, it } from "vitest";
import { Execution } from "../../../src/run/execution.js";
import { runTurn as runTurnLoop } from "../../../src/run/turn.js";
import type { PortWorld } from "../../../src/run/port-world.js";
import { conversationWindow } from "../../../src/run/history.js";
import { turnConversation } from "../../../src/run/conversation.js";
import { callsOf, createThread, inThread, json, messagesOf, stubOf } from "../../helpers.js";
import { ROW_LIMIT_BYTES, oversizedWrites } from "../../row-limit.js";

const MB3 = 3 * 1024 * 1024;

/** The largest row of every table of a thread, in bytes of stored text and blobs. */
async function largestRows(id: string): Promise<Record<string, number>> {
  return inThread(id, (i) => {
    const sql = i.ctx.storage.sql as SqlStorage;
    const out: Record<string, number> = {};
    const tables = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'").toArray();
    for (const { name } of tables) {
      const cols = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${name}')`).toArray().map((c) => c.name);
      const sum = cols.map((c) => `COALESCE(LENGTH(CAST("${c}" AS BLOB)), 0)`).join(" + ");
      out[name] = Number(sql.exec<{ n: number | null }>(`SELECT MAX(${sum}) AS n FROM "${name}"`).one().n ?? 0);
    }
    return out;
  });
}

async function expectRowsFit(id: string, refusedBefore: number) {
  const rows = await largestRows(id);
  for (const [table, bytes] of Object.entries(rows)) expect({ table, fits: bytes < ROW_LIMIT_BYTES, bytes }).toMatchObject({ table, fits: true });
  // Writes production would refuse (test/row-limit.ts refuses them here too, and records them).
  expect(oversizedWrites.slice(refusedBefore)).toEqual([]);
}

/** Runs one turn of a model that answers `first` and then "done". */
async function turnOf(id: string, first: unknown[]) {
  return inThread(id, async (instance) => {
    const engine: PortWorld = instance.world;
    const turnId = `turn_${crypto.randomUUID().slice(0, 8)}`;
    engine.store.turns.begin(turnId);
    const model = {
      id: "adapter",
      async *stream({ messages }: { messages: readonly unknown[] }) {
        if (messages.length === 0) yield* first as never[];
        else yield { type: "text-delta" as const, delta: "done" };
        yield { type: "finish" as const, finishReason: (messages.length === 0 ? "tool-calls" : "stop") as "stop", usage: {} };
      },
    };
    const execution = Execution.forTurn({ flowId: turnId, model, history: () => conversationWindow(engine, model) });
    return runTurnLoop(turnConversation(engine, execution), execution);
  });
}

describe("row-limit audit: no path stores a row over Cloudflare's 2 MB", () => {
  it("a model tool call with 3 MB of arguments: an error result naming the limit; the turn goes on", async () => {
    const before = oversizedWrites.length;
    const id = await createThread({ agent: "robustness" });
    const end = await turnOf(id, [{ type: "tool-call", id: "big", toolName: "record_call", input: JSON.stringify({ note: "n".repeat(MB3) }) }]);
    expect(end.status).toBe("completed");
    const [call] = await callsOf(id);
    expect(call).toMatchObject({ callId: "big", status: "failed" });
    expect(JSON.stringify(call!.result)).toContain("payload_too_large");
    await expectRowsFit(id, before);
  });

  it("a model answer of 3 MB of text", async () => {
    const before = oversizedWrites.length;
    const id = await createThread({ agent: "robustness" });
    await turnOf(id, [{ type: "text-delta", delta: "a".repeat(MB3) }]);
    const answer = (await messagesOf(id)).find((m) => m.role === "assistant")!;
    expect(answer.content).toMatch(/\[weft: the model's text was 3145728 bytes; only the start is stored/);
    await expectRowsFit(id, before);
  });

  it("inbox and script rows: content and script steps at their limits fit; over them is 413 naming the path", async () => {
    const before = oversizedWrites.length;
    const id = await createThread({ agent: "robustness" });
    const near = 1024 * 1024 - 64;
    const ok = await json("POST", `/threads/${id}/messages`, { content: "c".repeat(near), script: [{ text: "t".repeat(near - 100) }] });
    expect(ok.status).toBe(202);
    await stubOf(id).waitIdle();
    await expectRowsFit(id, before);
    const content = await json("POST", `/threads/${id}/messages`, { content: "c".repeat(MB3) });
    expect(content).toMatchObject({ status: 413, body: { error: { code: "payload_too_large", details: { path: ["content"] } } } });
    const step = await json("POST", `/threads/${id}/messages`, { content: "x", script: [{ text: "t".repeat(MB3) }] });
    expect(step.status).toBe(413);
    expect(step.body.error.code).toBe("payload_too_large");
    expect(step.body.error.details.path[0]).toBe("script");
  });

  it("POST /threads with 3 MB of arguments is refused with 413", async () => {
    const res = await json("POST", "/threads", { agent: "robustness", arguments: { blob: "b".repeat(MB3) } });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: "payload_too_large", details: { path: ["arguments"] } });
  });

  for (const via of ["setEnv", "injectMessage", "setValue", "result", "attachment", "error", "throw"] as const) {
    it(`a tool storing 3 MB through ${via}`, async () => {
      const before = oversizedWrites.length;
      const id = await createThread({ agent: "robustness" });
      const res = await json("POST", "/v1/tools/store_big", { input: { via, bytes: MB3 }, sessionId: id });
      expect(res.status).toBe(200);
      if (res.body.isError) expect(res.body.error).toMatch(/bytes|limit/);
      await expectRowsFit(id, before);
    });
  }
});
