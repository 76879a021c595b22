/**
 * weft/testing's `post` reports the turn its message began, though a background run's completion
 * starts another turn right after it: before, `post` waited until no turn ran, so it could report
 * the completion's turn, and a `nextTurn` after it waited for a turn that had already run (a new
 * user's trial, with the scripted model that answers at once). Repeated, since the race is timing's.
 */
import { describe, expect, it } from "vitest";
import { createTestThread, scripted } from "../../src/testing/index.js";
import { API_KEYS } from "../keys.js";

describe("thread.post beside a background run", () => {
  it("reports the posted turn, and nextTurn the completion's", async () => {
    for (let round = 0; round < 5; round++) {
      const thread = await createTestThread({
        token: API_KEYS.tester,
        agent: "bg_lead",
        model: scripted([
          { toolCalls: [{ id: "r1", name: "bg_researcher", arguments: { input: "what is 6 x 7?" } }] },
          { text: "Started." },
          { waitFor: "[no background run is still running]", text: "The run says 42." },
        ]),
      });
      const posted = await thread.post("research it");
      expect([posted.text, posted.turn?.status, posted.messages.map((m) => m.role)]).toEqual(["Started.", "completed", ["user", "assistant", "tool", "assistant"]]);
      expect(posted.calls.map((c) => c.callId)).toEqual(["r1"]);
      const completion = await thread.nextTurn({ timeoutMs: 20_000 });
      expect([completion.text, completion.turn?.status]).toEqual(["The run says 42.", "completed"]);
      expect(completion.turn?.turnId).not.toBe(posted.turn?.turnId);
    }
  });
});
