/**
 * The thread's usage rows are not indexed by turn (each request wrote that index, and no query
 * seeks it: `GET /threads/:id/usage` reads every row). A thread made with the index loses it when
 * it migrates, and reads back the same usage, per turn and in all.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/thread/store/migrations.js";
import { USAGE_REQUESTS_UNINDEXED_DDL } from "../../src/usage/thread-ledger.js";
import { createThread, inThread, json, rawStub, runTurn } from "../helpers.js";
import { schemaBackTo } from "../thread/store/schema-back.js";

const indexes = (id: string) =>
  inThread(id, (i) => i.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'usage_requests'").toArray().map((r: { name: string }) => r.name));

const usage = async (id: string) => {
  const body = (await json("GET", `/threads/${id}/usage`)).body;
  return { total: body.total, turns: body.turns, requests: body.requests.length };
};

describe("usage rows by turn", () => {
  it("a thread made with the index migrates without it and reads back the same usage", async () => {
    const id = await createThread({ agent: "default" });
    await runTurn(id, "one", [{ toolCalls: [{ id: "a", name: "get_current_time", arguments: {} }] }, { text: "done" }]);
    await runTurn(id, "two", [{ text: "again" }]);
    expect(await indexes(id)).toEqual([]);
    const before = await usage(id);
    expect([before.requests, before.turns.length, before.turns.map((t: { requests: number }) => t.requests)]).toEqual([3, 2, [2, 1]]);
    await inThread(id, (i) => {
      const sql = i.ctx.storage.sql;
      sql.exec("CREATE INDEX usage_requests_by_turn ON usage_requests (turn_id)");
      schemaBackTo(sql, MIGRATIONS.indexOf(USAGE_REQUESTS_UNINDEXED_DDL));
    });
    await evictDurableObject(rawStub(id));
    expect(await usage(id)).toEqual(before);
    expect(await indexes(id)).toEqual([]);
    expect(await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT version FROM weft_schema").one().version)).toBe(MIGRATIONS.length);
  });
});
