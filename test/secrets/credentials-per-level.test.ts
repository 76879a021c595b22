/**
 * Credentials (docs/env-and-secrets.md "Secrets and redaction"): a key from one env level is only ever sent to an
 * endpoint set at that same level, an empty value is no value, and the provider packages never
 * read `process.env`; runCode's `fetch` sends only what the code sent. Each case runs a real turn
 * (or run) against the fake provider, which keeps every outgoing request whole, and looks for the
 * Worker's canary in all of them.
 */
import { describe, expect, it } from "vitest";
import { asUser, runChoice, setWorkerValues, userToken } from "../authz/secrets-endpoints.js";
import { outboundContaining, scriptFake } from "../fake-provider.js";
import { createThread, inThread, json, stubOf } from "../helpers.js";

const unique = () => crypto.randomUUID().slice(0, 8);

/** The last turn of a thread, as its owner reads it. */
async function lastTurn(token: string, threadId: string): Promise<{ status: string; error?: string }> {
  return (await asUser(token, "GET", `/threads/${threadId}`, undefined, 200)).lastTurn;
}

describe("a key goes only to an endpoint set at its own level", () => {
  it("the Worker's key is not sent to a base URL the user set in their account env", async () => {
    const run = unique();
    const canary = `canary-worker-openai-${run}`;
    const token = await userToken(`creds-${run}`);
    const undo = setWorkerValues({ OPENAI_API_KEY: canary }, { env: true, processEnv: true });
    try {
      const id = await runChoice(token, { thread: {}, user: { WEFT_MODEL: "openai:gpt-4.1-mini", OPENAI_BASE_URL: `http://account-chosen-${run}.test/v1` } });
      expect(await outboundContaining(canary)).toEqual([]);
      const turn = await lastTurn(token, id);
      expect(turn.status).toBe("failed");
      expect(turn.error).toMatch(/OPENAI_BASE_URL comes from the user level and OPENAI_API_KEY from the worker level/);
    } finally {
      undo();
    }
  });

  it("a user's own key set at one level goes to their endpoint set at the same level, and nowhere else", async () => {
    const run = unique();
    const own = `own-key-${run}`;
    const token = await userToken(`creds-${run}`);
    await scriptFake(own, [{ text: "hello from the user's endpoint" }]);
    const undo = setWorkerValues({ ANTHROPIC_API_KEY: `canary-worker-anthropic-${run}` }, { env: true, processEnv: true });
    try {
      const id = await runChoice(token, {
        thread: {},
        user: { WEFT_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_BASE_URL: `http://mine-${run}.test/v1`, ANTHROPIC_API_KEY: own },
      });
      expect((await lastTurn(token, id)).status).toBe("completed");
      const sent = await outboundContaining(own);
      expect(sent.map((r) => new URL(r.url).host)).toEqual([`mine-${run}.test`]);
      expect(sent[0]!.headers["x-api-key"]).toBe(own);
      expect(await outboundContaining(`canary-worker-anthropic-${run}`)).toEqual([]);
    } finally {
      undo();
    }
  });
});

describe("an empty value is no value", () => {
  it("an empty thread key is not the thread's own key: the Worker's key behind it is refused to the thread's base URL", async () => {
    const run = unique();
    const canary = `canary-worker-compat-${run}`;
    const token = await userToken(`creds-${run}`);
    const undo = setWorkerValues({ OPENAI_COMPATIBLE_API_KEY: canary, OPENAI_API_KEY: `${canary}-openai` }, { env: true, processEnv: true });
    try {
      for (const [spec, keyEnv, urlEnv] of [
        ["openai-compatible:any", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL"],
        ["openai:gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL"],
      ] as const) {
        const id = await runChoice(token, { thread: { WEFT_MODEL: spec, [urlEnv]: `http://thread-chosen-${run}.test/v1`, [keyEnv]: "" }, user: {} });
        const turn = await lastTurn(token, id);
        expect(turn.status).toBe("failed");
        expect(turn.error).toContain(`${urlEnv} comes from the thread level and ${keyEnv} from the worker level`);
      }
      expect(await outboundContaining(canary)).toEqual([]);
    } finally {
      undo();
    }
  });

  it("an empty WEFT_MODEL at the Worker level names no model: the thread plays its script", async () => {
    const undo = setWorkerValues({ WEFT_MODEL: "" }, { env: true, processEnv: false });
    try {
      const id = await createThread();
      await json("POST", `/threads/${id}/messages`, { content: "hi", script: [{ text: "scripted answer" }] });
      await stubOf(id).waitIdle();
      const thread = (await json("GET", `/threads/${id}`)).body;
      expect(thread.lastTurn).toMatchObject({ status: "completed" });
    } finally {
      undo();
    }
  });
});

describe("provider packages never read process.env", () => {
  it("a Worker secret in process.env reaches no request of a provider configured without it", async () => {
    const run = unique();
    const token = await userToken(`creds-${run}`);
    // What nodejs_compat puts in process.env: the Worker's secrets, and here a base URL too.
    const canary = `canary-process-env-${run}`;
    const processHost = `process-env-${run}.test`;
    const undo = setWorkerValues(
      { OPENAI_API_KEY: canary, ANTHROPIC_API_KEY: canary, OPENAI_BASE_URL: `http://${processHost}/v1`, ANTHROPIC_BASE_URL: `http://${processHost}/v1` },
      { env: false, processEnv: true },
    );
    try {
      const own = `own-key-${run}`;
      for (const [spec, keyEnv, urlEnv, authHeader] of [
        ["openai:gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", "authorization"],
        ["anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "x-api-key"],
      ] as const) {
        // An endpoint with no key anywhere: the request goes keyless, not with process.env's key.
        const keyless = `http://keyless-${run}.test/v1`;
        await runChoice(token, { thread: { WEFT_MODEL: spec, [urlEnv]: keyless }, user: {} });
        const sentKeyless = (await outboundContaining(`keyless-${run}.test`)).filter((r) => r.body.includes(spec.split(":")[1]!));
        expect(sentKeyless.length).toBeGreaterThan(0);
        for (const r of sentKeyless) expect(r.headers[authHeader]).toBeUndefined();
        // A key with no base URL anywhere: the provider's own endpoint, not process.env's.
        await scriptFake(own, [{ text: "ok" }]);
        await runChoice(token, { thread: { WEFT_MODEL: spec, [keyEnv]: own }, user: {} });
      }
      expect(await outboundContaining(canary)).toEqual([]);
      expect(await outboundContaining(processHost)).toEqual([]);
      expect((await outboundContaining(`own-key-${run}`)).map((r) => new URL(r.url).origin)).toEqual(["https://api.openai.com", "https://api.anthropic.com"]);
    } finally {
      undo();
    }
  });
});

describe("runCode's fetch carries only what the code sent", () => {
  for (const sandbox of ["quickjs", "isolate"] as const) {
    it(`${sandbox}: a granted origin receives the code's own headers and body, and no Worker credential`, async () => {
      const run = unique();
      const canary = `canary-worker-sandbox-${run}`;
      const origin = `http://granted-${sandbox}-${run}.test`;
      const undo = setWorkerValues({ OPENAI_API_KEY: canary, SANDBOX_PROBE_SECRET: canary }, { env: true, processEnv: true });
      try {
        const id = await createThread();
        const value = await inThread(id, async (instance: any) => {
          const { createThreadState } = await import("../../src/run/state.js");
          const state = createThreadState(instance.world, { callId: "call_fetch_probe", tool: instance.world.catalog.get("run_code") }, null);
          const src = `export default async (url) => { const r = await fetch(url, { method: "POST", headers: { "x-mine": "mine" }, body: "from the code" }); return r.status }`;
          return (await state.runCode(src, { sandbox, fetch: { allow: [origin] }, execute: { fn: "default", args: [`${origin}/v1/anything`] } }).result).status;
        });
        expect(value).toBe("success");
        const sent = await outboundContaining(`granted-${sandbox}-${run}.test`);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.body).toBe("from the code");
        expect(sent[0]!.headers["x-mine"]).toBe("mine");
        // The code's header, and what the runtime adds to any request (cf-worker names the Worker's zone, no secret).
        expect(Object.keys(sent[0]!.headers).sort()).toEqual(["cf-worker", "content-length", "content-type", "host", "x-mine"]);
        expect(await outboundContaining(canary)).toEqual([]);
      } finally {
        undo();
      }
    });
  }
});
