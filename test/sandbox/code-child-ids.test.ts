/**
 * The tools a call's code invokes are its children like those of `state.invokeTool`: numbered
 * `<callId>.invoke<n>` in the order asked, so a parent run again (a read retried after a transient
 * failure here; a restart's re-run, a settled "retry" alike) finds their results and never runs a
 * child write twice (docs/guarantees.md, "Restarts"). Found by a hostile review: code's calls had
 * fresh ids each run, and the write ran once per attempt.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, runTurn } from "../helpers.js";

async function childrenOf(via: "code" | "invoke") {
  const id = await createThread({ agent: "code_children" });
  await runTurn(id, "go", [{ toolCalls: [{ id: "p1", name: "code_then_transient", arguments: { via } }] }, { text: "done" }]);
  const calls = await callsOf(id);
  const parent = calls.find((c) => c.callId === "p1")!;
  const writes = calls.filter((c) => c.toolName === "record_call").map((w) => `${w.callId}: ${w.status}`);
  return { parent: `${parent.status} after ${parent.attempts} attempts`, writes };
}

describe("a parent run again finds the tools its code invoked", () => {
  it("state.invokeTool: one write for the parent's two attempts", async () => {
    expect(await childrenOf("invoke")).toEqual({ parent: "succeeded after 2 attempts", writes: ["p1.invoke1: succeeded"] });
  });

  it("state.runCode: each write once, by the order the code asked", async () => {
    expect(await childrenOf("code")).toEqual({ parent: "succeeded after 2 attempts", writes: ["p1.invoke1: succeeded", "p1.invoke2: succeeded"] });
  });
});
