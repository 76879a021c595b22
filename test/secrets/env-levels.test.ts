/**
 * Env resolution: thread -> agent defaults -> prompt defaults -> user account -> Worker vars and
 * secrets, each level beating every later one, with `envType` taken from the level that answered;
 * and required tool variables checked when a thread is created.
 */
import { describe, expect, it } from "vitest";
import { ENV_LEVELS, type EnvEntry, resolveEnv } from "../../src/secrets/env.js";
import { createThread, inThread, json } from "../helpers.js";

/** A user-account level holding `values`, standing in for the accounts a deployment adds. */
const userLevel = (values: Record<string, EnvEntry>) => ({
  get: async (userId: string, name: string) => (userId === "tester" && Object.hasOwn(values, name) ? values[name] : undefined),
});

describe("env resolution", () => {
  it("asks the levels in the documented order", () => {
    expect(ENV_LEVELS).toEqual(["thread", "agent", "prompt", "user", "worker"]);
  });

  it("each level wins over every later one, and envType follows the level that answered", async () => {
    // The Worker (test/wrangler.toml) holds every LEVEL_* name; the agent and its side a prompt
    // hold some (test/fixtures/agents/env_levels.ts, prompts/env_levels.ts); the thread holds one.
    const id = await createThread({ agent: "env_levels", env: { LEVEL_THREAD: { value: "thread", type: "text" } } });
    const out = await inThread(id, async (instance: any) => {
      const { createThreadState, envSources } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, undefined, null);
      const viaState: Record<string, [string, string]> = {};
      for (const name of ["LEVEL_THREAD", "LEVEL_AGENT", "LEVEL_PROMPT", "LEVEL_WORKER"]) {
        viaState[name] = [await state.env(name), await state.envType(name)];
      }
      // The user level, filled as an accounts deployment would fill it.
      const sources = { ...envSources(instance.world), user: userLevel({ LEVEL_USER: { value: "user", type: "text" }, LEVEL_PROMPT: { value: "user", type: "text" } }) };
      const levels: Record<string, unknown> = {};
      for (const name of ["LEVEL_THREAD", "LEVEL_AGENT", "LEVEL_PROMPT", "LEVEL_USER", "LEVEL_WORKER"]) {
        levels[name] = await resolveEnv(sources, name);
      }
      return { viaState, levels };
    });
    expect(out.viaState).toEqual({
      LEVEL_THREAD: ["thread", "text"],
      LEVEL_AGENT: ["agent", "text"],
      LEVEL_PROMPT: ["prompt", "text"],
      LEVEL_WORKER: ["worker-value-of-worker", "secret"],
    });
    expect(out.levels).toEqual({
      LEVEL_THREAD: { value: "thread", type: "text", level: "thread" },
      LEVEL_AGENT: { value: "agent", type: "text", level: "agent" },
      LEVEL_PROMPT: { value: "prompt", type: "text", level: "prompt" },
      LEVEL_USER: { value: "user", type: "text", level: "user" },
      LEVEL_WORKER: { value: "worker-value-of-worker", type: "secret", level: "worker" },
    });
  });

  it("envType of a name no level holds is secret, where env throws env_not_found", async () => {
    const id = await createThread({ agent: "env_levels" });
    const out = await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, undefined, null);
      const thrown = await state.env("NO_SUCH_NAME").then(() => "none", (e: { code?: string }) => e.code);
      return { type: await state.envType("NO_SUCH_NAME"), thrown };
    });
    expect(out).toEqual({ type: "secret", thrown: "env_not_found" });
  });

  it("a plain-string default is secret; an unset thread value does not hide a default", async () => {
    const id = await createThread({ agent: "env_levels" });
    const out = await inThread(id, async (instance: any) => {
      const { createThreadState } = await import("../../src/run/state.js");
      const state = createThreadState(instance.world, undefined, null);
      await state.setEnv("LEVEL_AGENT", "mine");
      return { thread: [await state.env("LEVEL_THREAD"), await state.envType("LEVEL_THREAD")], agent: [await state.env("LEVEL_AGENT"), await state.envType("LEVEL_AGENT")] };
    });
    // The agent's LEVEL_THREAD is a plain string: secret. setEnv on a name the thread did not hold
    // creates a secret thread value that now wins over the agent's text default.
    expect(out).toEqual({ thread: ["agent-value-of-thread", "secret"], agent: ["mine", "secret"] });
  });
});

describe("values only the deployment sets", () => {
  // A user sets their thread's and account's env: a tool that reads where a request goes (a base
  // URL) from there would send the Worker's key for that service to the user's own server.
  it("{ from: \"deployment\" } skips the thread and the user account, whatever they hold", async () => {
    const id = await createThread({ agent: "env_levels", env: { LEVEL_WORKER: { value: "https://attacker.example", type: "text" }, LEVEL_AGENT: "https://attacker.example", LEVEL_THREAD_ONLY: "mine-only" } });
    const out = await inThread(id, async (instance: any) => {
      const { createThreadState, envSources } = await import("../../src/run/state.js");
      const { resolveEnv: resolve } = await import("../../src/secrets/env.js");
      const state = createThreadState(instance.world, undefined, null);
      const deployment = { from: "deployment" } as const;
      const asked = (name: string, options?: unknown) => (state.env as (n: string, o?: unknown) => Promise<string>)(name, options).then((v) => v, (e: { code?: string; message?: string }) => `${e.code}: ${e.message}`);
      const sources = { ...envSources(instance.world), user: userLevel({ LEVEL_USER: { value: "user", type: "text" }, LEVEL_PROMPT: { value: "user", type: "text" } }) };
      return {
        anyLevel: await state.env("LEVEL_WORKER"),
        worker: await asked("LEVEL_WORKER", deployment),
        types: [await state.envType("LEVEL_WORKER"), await state.envType("LEVEL_WORKER", deployment)],
        agent: await asked("LEVEL_AGENT", deployment),
        threadOnly: await asked("LEVEL_THREAD_ONLY", deployment),
        badFrom: await asked("LEVEL_WORKER", { from: "thread" }),
        user: await resolve(sources, "LEVEL_USER", deployment),
        prompt: await resolve(sources, "LEVEL_PROMPT", deployment),
      };
    });
    expect(out).toEqual({
      anyLevel: "https://attacker.example",
      worker: "worker-value-of-worker",
      types: ["text", "secret"],
      agent: "agent",
      threadOnly: expect.stringMatching(/^env_not_found: environment value "LEVEL_THREAD_ONLY" is not set by the deployment/),
      badFrom: expect.stringMatching(/^invalid_request: /),
      // The account's value is passed over for the Worker's.
      user: { value: "worker-value-of-user", type: "secret", level: "worker" },
      prompt: { value: "prompt", type: "text", level: "prompt" },
    });
  });
});

describe("required variables", () => {
  it("a thread whose tools need an unset variable is refused with 400 missing_variables", async () => {
    const res = await json("POST", "/threads", { agent: "needs_key" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("missing_variables");
    expect(res.body.error.message).toContain('WEFT_FIXTURE_PAYMENT_KEY (needed by "charge_card")');
    expect(res.body.error.details).toEqual({ missing: [{ name: "WEFT_FIXTURE_PAYMENT_KEY", tools: ["charge_card"] }], path: ["env", "WEFT_FIXTURE_PAYMENT_KEY"] });
  });

  it("the variable given in the create request's env satisfies it, and the tool reads it", async () => {
    const res = await json("POST", "/threads", { agent: "needs_key", env: { WEFT_FIXTURE_PAYMENT_KEY: "sk_test_123" } });
    expect(res.status).toBe(201);
    const call = await json("POST", "/v1/tools/charge_card", { input: {}, sessionId: res.body.threadId });
    expect(call.body).toMatchObject({ ok: true, result: "charged with 11-char key" });
  });

  it("a refused create leaves no thread behind: the same token can create it once the key is given", async () => {
    const token = `test:needs-key-${crypto.randomUUID()}`;
    expect((await json("POST", "/threads", { agent: "needs_key", continuationToken: token })).status).toBe(400);
    const ok = await json("POST", "/threads", { agent: "needs_key", continuationToken: token, env: { WEFT_FIXTURE_PAYMENT_KEY: "k" } });
    expect(ok.status).toBe(201);
  });
});

describe("user-account values kept by a thread", () => {
  it("a change to the owner's account reaches a thread that read the old values, from the moment it is acknowledged", async () => {
    const name = `KEPT_${crypto.randomUUID().replaceAll("-", "").slice(0, 8).toUpperCase()}`;
    const readEnv = async (sessionId: string) => (await json("POST", "/v1/tools/read_env", { sessionId, input: { name } })).body;
    expect((await json("PUT", `/account/env/${name}`, { value: "first-value-1", type: "text" })).status).toBe(200);
    const id = await createThread();
    expect((await readEnv(id)).result).toBe("first-value-1|text");
    // The very next call of the same thread resolves the new value and type.
    expect((await json("PUT", `/account/env/${name}`, { value: "second-value-2", type: "secret" })).status).toBe(200);
    // The new value is a secret from the moment it is acknowledged: the answer shows its marker.
    expect((await readEnv(id)).result).toBe("[redacted]|secret");
    expect((await json("DELETE", `/account/env/${name}`)).status).toBe(200);
    const third = await readEnv(id);
    expect(third.isError).toBe(true);
    expect(third.error).toContain(`environment value "${name}" is not set`);
  });
});
