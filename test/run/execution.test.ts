import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/models/scripted.js";
import { Execution } from "../../src/run/execution.js";

const model = createScriptedModel({ next: () => undefined });

describe("Execution", () => {
  it("counts steps per side, records who stopped, and hands a forced side out once", () => {
    const ex = Execution.forTurn({ flowId: "turn_1", model, history: () => [] });
    ex.countStep();
    ex.currentSide = "b";
    ex.countStep();
    ex.countStep();
    expect(ex.state).toMatchObject({ stepCount: 3, sideAStepCount: 1, sideBStepCount: 2, currentSide: "b", stopped: false });
    ex.state.forceTurn("a");
    expect(ex.takeForcedSide()).toBe("a");
    expect(ex.takeForcedSide()).toBeNull();
    ex.state.stop();
    expect(ex.state).toMatchObject({ stopped: true, stoppedBy: "b" });
    expect(ex.signal.aborted).toBe(false);
    expect(() => ex.state.forceTurn("c" as "a")).toThrow(/forceTurn/);
  });

  it("nests: depth, prompt path, shared context, and a parent's abort reaching the child", () => {
    const turn = Execution.forTurn({ flowId: "turn_1", model, history: () => [], steps: { total: 4, a: 4, b: 0 } });
    turn.context.k = 1;
    const child = Execution.nested(turn, { flowId: "flow_c", promptName: "summarize", model, history: () => [] });
    const grandchild = Execution.nested(child, { flowId: "flow_g", promptName: "translate", model, history: () => [] });
    expect([turn.depth, child.depth, grandchild.depth]).toEqual([0, 1, 2]);
    expect(grandchild.state.promptPath).toEqual(["summarize", "translate"]);
    expect(grandchild.context).toBe(turn.context);
    expect(child.state.stepCount).toBe(0);
    expect(turn.state.stepCount).toBe(4);
    turn.abort();
    expect(grandchild.signal.aborted).toBe(true);
    expect(grandchild.state.stopped).toBe(true);
    expect(grandchild.parent).toBe(child);
  });

  it("keeps two executions of one thread apart", () => {
    const a = Execution.forTurn({ flowId: "a", model, history: () => [] });
    const b = Execution.forTurn({ flowId: "b", model, history: () => [] });
    a.context.x = 1;
    a.abort();
    expect(b.context).toEqual({});
    expect(b.signal.aborted).toBe(false);
  });
});
