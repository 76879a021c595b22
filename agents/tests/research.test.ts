/**
 * The background research agent: research_lead starts three detached topic_researcher runs in one
 * step, its turn ends at once, and each run's findings come back once, as a message and a
 * `run_finished` event; the lead reports when none is left running (docs/schedules.md, "Background runs"),
 * after that completion whichever way the completions were grouped into turns.
 */
import { describe, expect, it } from "vitest";
import { createTestThread } from "weft/testing";

describe("the background research agent", () => {
  it("runs three detached sub-runs and reports when all are done", async () => {
    // The scripted model plays the agent's own `script`.
    const thread = await createTestThread({ agent: "research_lead" });
    const started = await thread.post("What should we know about the new shipping rules?");
    // The three calls answered at once with run ids; the runs went on in their own threads.
    const calls = started.calls.filter((c) => c.toolName === "topic_researcher");
    expect(calls.map((c) => [c.callId, c.status, JSON.parse(c.result!.result!).status])).toEqual([
      ["part_1", "succeeded", "running"],
      ["part_2", "succeeded", "running"],
      ["part_3", "succeeded", "running"],
    ]);

    // Generous: a loaded machine slows the children, never the order.
    const deadline = Date.now() + 90_000;
    let types: string[] = [];
    while (Date.now() < deadline) {
      types = (await thread.events()).map((e) => e.type);
      if (types.filter((t) => t === "run_finished").length === 3 && types.at(-1) === "turn_finished" && (await thread.info()).status === "idle") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const events = await thread.events();
    const finished = events.filter((e) => e.type === "run_finished").map((e) => e.data as { runId: string; status: string });
    expect(finished.map((f) => [f.runId, f.status]).sort()).toEqual([
      ["run_part_1", "completed"],
      ["run_part_2", "completed"],
      ["run_part_3", "completed"],
    ]);
    const messages = await thread.messages();
    const completions = messages.filter((m) => m.role === "user" && m.content.startsWith("[background run "));
    expect(completions).toHaveLength(3);
    expect(completions.filter((m) => m.content.endsWith("[no background run is still running]"))).toHaveLength(1);
    const said = messages.filter((m) => m.role === "assistant" && m.content !== "").map((m) => m.content);
    expect(said[0]).toBe("Three research runs started; I will report when all three are done.");
    expect(said.at(-1)).toMatch(/^Report: all three research runs are done\./);
    // However the completions were grouped into turns: the report comes after the one that says
    // none is left, once, and no turn ran out of steps (no "Nothing to play" notice).
    const last = messages.findIndex((m) => m.role === "user" && m.content.endsWith("[no background run is still running]"));
    const report = messages.findIndex((m) => m.role === "assistant" && m.content.startsWith("Report:"));
    expect(last).toBeGreaterThan(-1);
    expect(report).toBeGreaterThan(last);
    expect(said.filter((t) => t.startsWith("Report:"))).toHaveLength(1);
    expect(messages.filter((m) => m.role === "system")).toEqual([]);
    // Started before any finished; every completion after the turn that started them.
    expect(types.indexOf("run_started")).toBeLessThan(types.indexOf("run_finished"));
    expect(types.lastIndexOf("run_started")).toBeLessThan(types.indexOf("turn_finished"));
  });
});
