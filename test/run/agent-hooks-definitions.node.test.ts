/** An agent's own `hooks` are checked with the definition: only hook names, only functions, each refusal naming its path. */
import { describe, expect, it } from "vitest";
import { checkAgentDefinition, defineAgent } from "../../src/run/agent.js";

describe("an agent's hooks", () => {
  it("refuses a name that is not a hook, listing the hooks", () => {
    expect(() => checkAgentDefinition("a", defineAgent({ hooks: { on_message: () => undefined } as never }))).toThrow(/agent "a": hooks\.on_message: not a hook; the hooks are before_create_message/);
  });

  it("refuses a hook that is not a function, and hooks that are not an object", () => {
    expect(() => checkAgentDefinition("a", defineAgent({ hooks: { tool_call_finished: "log" } as never }))).toThrow(/hooks\.tool_call_finished: must be a function/);
    expect(() => checkAgentDefinition("a", defineAgent({ hooks: [] as never }))).toThrow(/hooks must be an object/);
  });

  it("takes the hooks it knows", () => {
    expect(() => checkAgentDefinition("a", defineAgent({ hooks: { tool_call_started: () => undefined, filter_messages: (_s, m) => m } }))).not.toThrow();
  });
});
