/**
 * definePrompt, defineAgent with sides, defineHook: plain objects, their checks at run time
 * (the same checks the build runs), and `state.loadAgent`.
 */
import { describe, expect, it } from "vitest";
import { defineAgent, defineHook, definePrompt } from "../../src/index.js";
import { checkAgentDefinition, sidesOf } from "../../src/run/agent.js";
import { checkHookDefinition } from "../../src/run/hooks.js";
import { checkPromptDefinition } from "../../src/run/prompt.js";
import { checkReferences } from "../../src/run/references.js";
import { createThread, inThread } from "../helpers.js";

const codeOf = (fn: () => void): string => {
  try {
    fn();
    return "accepted";
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
};

describe("definitions", () => {
  it("define* return plain tagged objects", () => {
    const run = () => {};
    expect(definePrompt({ toolDescription: "d", system: "s" })).toEqual({ kind: "prompt", toolDescription: "d", system: "s" });
    expect(defineHook("after_create_message", run)).toEqual({ kind: "hook", hook: "after_create_message", run });
    expect(defineAgent({ sideA: "a", sideB: "b" })).toEqual({ kind: "agent", sideA: "a", sideB: "b" });
  });

  it("checks refuse bad definitions with invalid_config naming the definition and the rule", () => {
    expect(codeOf(() => checkPromptDefinition("p", definePrompt({ toolDescription: " " })))).toBe(
      'invalid_config: prompt "p": toolDescription is required: a non-empty string that tells a model when to call this prompt',
    );
    expect(codeOf(() => checkPromptDefinition("p", definePrompt({ toolDescription: "d", model: "gpt-4" })))).toBe(
      'invalid_config: prompt "p": model must be "<provider>:<model id>", got "gpt-4"',
    );
    expect(codeOf(() => checkAgentDefinition("x", defineAgent({ sideB: "b" })))).toBe('invalid_config: agent "x": sideB needs sideA: name side a\'s prompt too');
    expect(codeOf(() => checkAgentDefinition("x", defineAgent({ exposeAsTool: true })))).toBe(
      'invalid_config: agent "x": exposeAsTool needs toolDescription: a non-empty string that tells a model when to call this agent',
    );
    expect(codeOf(() => checkAgentDefinition("x", defineAgent({ sideA: "p", tools: ["t"] })))).toContain("belong to side a's prompt");
    expect(codeOf(() => checkAgentDefinition("x", defineAgent({ env: { K: { value: 1 as unknown as string } } })))).toContain("env.K must be");
    expect(codeOf(() => checkHookDefinition("tool_call_started", defineHook("tool_call_finished", () => {})))).toContain(
      'the file defines hook "tool_call_finished"',
    );
    expect(codeOf(() => checkAgentDefinition("ok", defineAgent({ sideA: { prompt: "p", maxSteps: 3, stopTool: "t" }, sideB: "q" })))).toBe("accepted");
  });

  it("references: sides name prompts, stop tools are offered, callable names are unique", () => {
    const problems = checkReferences({
      tools: ["lookup", "resolve"],
      prompts: { support: definePrompt({ toolDescription: "d", tools: ["lookup", "triage"] }), lookup: definePrompt({ toolDescription: "d" }) },
      agents: {
        desk: defineAgent({ sideA: { prompt: "support", stopTool: "resolve" }, sideB: "customer" }),
        triage: defineAgent({ exposeAsTool: true, toolDescription: "d" }),
      },
      toolsWhere: "agents/tools/",
    });
    expect(problems.map((p) => p.message)).toEqual([
      'agent "desk": sideA.stopTool "resolve" is not offered by prompt "support"',
      'agent "desk": sideB names prompt "customer", which is not in prompts/',
      'prompt "lookup": a tool has the same name; callable names must be unique',
    ]);
  });

  it("sides resolve to their prompts; a one-sided agent's text answer ends the turn, two sides hand over", () => {
    const registry = {
      tools: {},
      agents: {},
      prompts: { support: definePrompt({ toolDescription: "d", system: "s", tools: ["x"], model: "openai:gpt-4.1-mini" }), customer: definePrompt({ toolDescription: "c" }) },
    };
    const one = sidesOf(registry, defineAgent({ system: (a) => `hi ${String(a.name)}`, tools: ["y"] }));
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ side: "a", tools: ["y"], endsTurn: true });
    const two = sidesOf(registry, defineAgent({ sideA: "support", sideB: { prompt: "customer", stopTool: "x", maxSteps: 4 } }));
    expect(two).toEqual([
      { side: "a", promptName: "support", system: "s", tools: ["x"], model: "openai:gpt-4.1-mini", endsTurn: false },
      { side: "b", promptName: "customer", stopTool: "x", maxSteps: 4, endsTurn: false },
    ]);
  });

  it("state.loadAgent returns the definition; an unknown name is agent_not_found", async () => {
    const id = await createThread({ agent: "env_levels", arguments: { who: "Ada" } });
    const out = await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, undefined, null);
      const agent = await state.loadAgent<{ kind: string; sideA: string }>(state.agentId);
      let missing = "";
      await state.loadAgent("nope").catch((e: { code: string }) => (missing = e.code));
      return { kind: agent.kind, sideA: agent.sideA, missing, system: instance.world.system() };
    });
    // The system prompt of side a is a function of the thread's arguments.
    expect(out).toEqual({ kind: "agent", sideA: "env_levels", missing: "agent_not_found", system: "You report environment values for Ada." });
  });
});
