/**
 * The scripted model's held step (`waitFor`, src/models/scripted.ts): it is played at the first
 * model request whose newest message contains its text; requests before then end their turns
 * with an empty reply and leave it next, through a restart too. A bad `waitFor` is refused with
 * its path, storing nothing.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createThread, json, messagesOf, rawStub, runTurn } from "../helpers.js";

describe("a scripted step that waits for a message", () => {
  it("is held while the newest message lacks its text (empty replies, no notice), then played once, after a restart too", async () => {
    const id = await createThread();
    await runTurn(id, "first of three", [{ text: "Started." }, { waitFor: "[none left]", text: "Report." }, { text: "After." }]);
    await runTurn(id, "second: 1 left", []);
    await evictDurableObject(rawStub(id));
    await runTurn(id, "third\n[none left]", []);
    await runTurn(id, "one more", []);
    const said = (await messagesOf(id)).map((m) => [m.role, m.content]);
    expect(said).toEqual([
      ["user", "first of three"],
      ["assistant", "Started."],
      ["user", "second: 1 left"],
      ["assistant", ""],
      ["user", "third\n[none left]"],
      ["assistant", "Report."],
      ["user", "one more"],
      ["assistant", "After."],
    ]);
  });

  it("refuses a waitFor that is not a non-empty string, naming its path, and stores nothing", async () => {
    const id = await createThread();
    for (const waitFor of ["", 7]) {
      const res = await json("POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "a" }, { waitFor, text: "b" }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", details: { path: ["script", 1, "waitFor"] } });
    }
    expect(await messagesOf(id)).toEqual([]);
  });
});
