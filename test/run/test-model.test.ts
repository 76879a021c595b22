/**
 * weft/testing's model sources beat an agent's own `model` under the author's test runner
 * (`WEFT_TEST_RUNNER=on` in the Worker's env, set by vitest.agents.config.ts): a thread given
 * `WEFT_TEST_MODEL` plays its script (`scripted`) or talks to the model the test named, and takes
 * no fallback. A deployed Worker ignores the value (a new user's test of an agent pinned to
 * `openai:gpt-4.1-mini` called the provider instead of its script).
 */
import { describe, expect, it } from "vitest";
import { fallbacksFor, modelChoiceOf, modelsInForce } from "../../src/run/model-choice.js";
import type { ResolvedSide } from "../../src/run/agent.js";
import type { RunWorld } from "../../src/run/world.js";
import { NO_USER_ENV, type EnvEntry, type EnvSources } from "../../src/secrets/env.js";

const PINNED: ResolvedSide = { side: "a", model: "openai:gpt-4.1-mini", fallbackModels: ["anthropic:claude-sonnet-4-5"], endsTurn: true };

/** A thread of an agent pinned to a provider, with `threadEnv` as its own env values. */
function pinnedThread(workerEnv: Record<string, unknown>, threadEnv: Record<string, string>) {
  const thread = (name: string): EnvEntry | undefined => (Object.hasOwn(threadEnv, name) ? { value: threadEnv[name]!, type: "text" } : undefined);
  const engine = {
    workerEnv: { OPENAI_API_KEY: "sk-worker", ANTHROPIC_API_KEY: "sk-ant-worker", ...workerEnv },
    meta: { agentId: "pinned", userId: "tester" },
    sides: [PINNED],
    agent: { env: undefined },
    store: { env: { get: thread } },
    promptEnv: () => undefined,
    userEnv: NO_USER_ENV,
  } as unknown as RunWorld;
  const sources: EnvSources = { thread, userId: "tester", user: NO_USER_ENV, worker: engine.workerEnv };
  return { engine, sources };
}

describe("a test's model under the author's test runner", () => {
  it("scripted beats the agent's model, and no fallback is taken", async () => {
    const { engine, sources } = pinnedThread({ WEFT_TEST_RUNNER: "on" }, { WEFT_TEST_MODEL: "scripted" });
    expect(await modelChoiceOf(engine, sources, PINNED)).toBeNull();
    expect(await fallbacksFor(engine, PINNED)).toEqual([]);
  });

  it("a spec the test named beats the agent's model", async () => {
    const { engine, sources } = pinnedThread({ WEFT_TEST_RUNNER: "on" }, { WEFT_TEST_MODEL: "anthropic:claude-sonnet-4-5", WEFT_MODEL: "anthropic:claude-sonnet-4-5" });
    expect(await modelChoiceOf(engine, sources, PINNED)).toMatchObject({ spec: "anthropic:claude-sonnet-4-5", where: "env WEFT_TEST_MODEL" });
  });

  it("is ignored by a Worker not under the test runner: the agent's model and fallbacks stand", async () => {
    for (const runner of [{}, { WEFT_TEST_RUNNER: "yes" }]) {
      const { engine, sources } = pinnedThread(runner, { WEFT_TEST_MODEL: "scripted" });
      expect(await modelChoiceOf(engine, sources, PINNED)).toMatchObject({ spec: "openai:gpt-4.1-mini" });
      expect(await fallbacksFor(engine, PINNED)).toHaveLength(1);
    }
  });

  it("a thread without it keeps the agent's model under the runner too", async () => {
    const { engine, sources } = pinnedThread({ WEFT_TEST_RUNNER: "on" }, {});
    expect(await modelChoiceOf(engine, sources, PINNED)).toMatchObject({ spec: "openai:gpt-4.1-mini" });
  });

  it("GET /threads/:id's models says the test's model is in force, not that the agent names none (h30i)", async () => {
    // Under npm run test:agents a thread of agents/agents/pinned.ts (model: "openai:gpt-4.1-mini")
    // given scripted(...) reported {"spec":"scripted","where":"no model in agents/agents/pinned.ts and no WEFT_MODEL"}:
    // the file does name a model; the test's WEFT_TEST_MODEL is what replaced it.
    const { engine } = pinnedThread({ WEFT_TEST_RUNNER: "on" }, { WEFT_TEST_MODEL: "scripted" });
    const [model] = await modelsInForce(engine);
    expect(model).toMatchObject({ side: "a", spec: "scripted" });
    expect(model!.where).not.toMatch(/^no model in/);
    expect(model!.where).toContain("WEFT_TEST_MODEL");
  });
});
