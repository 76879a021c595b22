/**
 * The scripted model's table keeps unplayed steps only: a played step is deleted (it was marked
 * played, and an index kept the unplayed ones apart). A thread made before keeps its unplayed
 * steps, in order, and loses its played ones when it migrates.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/thread/store/migrations.js";
import { createThread, inThread, messagesOf, rawStub, runTurn } from "../../helpers.js";
import { schemaBackTo } from "./schema-back.js";

/** The migration that deletes played steps, and the schema version before it. */
const DELETED = MIGRATIONS.findIndex((m) => m.includes("DROP INDEX IF EXISTS script_unplayed"));

const scriptRows = (id: string) =>
  inThread(id, (i) => ({
    rows: i.ctx.storage.sql.exec("SELECT step, consumed FROM script ORDER BY id").toArray().map((r: { step: string; consumed: number }) => [JSON.parse(r.step).text, r.consumed]),
    index: i.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'script'").toArray().length,
  }));

const answers = async (id: string) => (await messagesOf(id)).filter((m) => m.role === "assistant").map((m) => m.content);

describe("script steps", () => {
  it("a played step is gone from the table; the steps not yet played stay, in order", async () => {
    const id = await createThread({ agent: "default" });
    await runTurn(id, "one", [{ text: "first" }, { text: "second" }, { text: "third" }]);
    await runTurn(id, "two", []);
    expect(await answers(id)).toEqual(["first", "second"]);
    expect(await scriptRows(id)).toEqual({ rows: [["third", 0]], index: 0 });
    await runTurn(id, "three", [{ text: "fourth" }]);
    expect(await answers(id)).toEqual(["first", "second", "third"]);
    expect(await scriptRows(id)).toEqual({ rows: [["fourth", 0]], index: 0 });
  });

  it("a thread whose played steps were marked, with the index over them, migrates: the unplayed play next, in order", async () => {
    const id = await createThread({ agent: "default" });
    await inThread(id, (i) => {
      const sql = i.ctx.storage.sql;
      i.ctx.storage.transactionSync(() => {
        sql.exec("CREATE INDEX script_unplayed ON script (consumed, id)");
        for (const [text, consumed] of [["played a", 1], ["played b", 1], ["next", 0], ["after", 0]] as const) {
          sql.exec("INSERT INTO script (step, consumed) VALUES (?, ?)", JSON.stringify({ text, toolCalls: [] }), consumed);
        }
        schemaBackTo(sql, DELETED);
      });
    });
    await evictDurableObject(rawStub(id));
    await runTurn(id, "go", []);
    expect(await answers(id)).toEqual(["next"]);
    expect(await scriptRows(id)).toEqual({ rows: [["after", 0]], index: 0 });
    expect(await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT version FROM weft_schema").one().version)).toBe(MIGRATIONS.length);
  });
});
