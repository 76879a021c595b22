/**
 * Review (secrets x provider endpoints): the Worker's string vars are secrets unless
 * `WEFT_PUBLIC_VARS` names them (docs/env-and-secrets.md "Secrets and redaction"), and a thread's answers are cleaned
 * only of the Worker secrets its code received. The deployment's `OPENAI_BASE_URL` (a gateway whose
 * path names an account, or carries a token) is a Worker secret thread code never receives; yet
 * when its endpoint answered 404, weft's own hint for `openai:` models ("speaks OpenAI's Responses
 * API (POST <base URL>/responses)") quoted it into the turn's error. Any user can cause the 404:
 * `WEFT_MODEL` set in their thread's env to a listed model the deployment's account has no access to
 * (OpenAI answers 404 "The model ... does not exist or you do not have access to it").
 */
import { describe, expect, it } from "vitest";
import { asUser, setWorkerValues, userToken } from "../authz/secrets-endpoints.js";
import { scriptFake } from "../fake-provider.js";
import { stubOf } from "../helpers.js";

describe("a provider's 404 hint", () => {
  it("does not quote a base URL the user did not set", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const key = `deploy-key-${run}`;
    const hidden = `gw-secret-path-${run}`;
    const undo = setWorkerValues({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `http://fake-provider.test/v1/${hidden}` }, { env: true, processEnv: false });
    try {
      await scriptFake(key, [{ error: { status: 404, message: "The model `gpt-4.1-mini` does not exist or you do not have access to it" } }]);
      const token = await userToken(`hint-${run}`);
      const { threadId } = await asUser(token, "POST", "/threads", { agent: "faults", env: { WEFT_MODEL: { value: "openai:gpt-4.1-mini", type: "text" } } }, 201);
      await asUser(token, "POST", `/threads/${threadId}/messages`, { content: "hello" }, 202);
      await stubOf(threadId).waitIdle();
      const { lastTurn } = await asUser(token, "GET", `/threads/${threadId}`, undefined, 200);
      expect(lastTurn.status).toBe("failed");
      expect(lastTurn.error).toContain("does not exist");
      expect(lastTurn.error, "the turn's error quoted the Worker's OPENAI_BASE_URL").not.toContain(hidden);
      // The hint still helps: it names the setting and the Responses API.
      expect(lastTurn.error).toContain("Responses API");
    } finally {
      undo();
    }
  });

  it("still quotes a base URL the user set themselves", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const key = `own-key-${run}`;
    await scriptFake(key, [{ error: { status: 404, message: "not found" } }]);
    const token = await userToken(`hint-own-${run}`);
    const env = {
      WEFT_MODEL: { value: "openai:gpt-4.1-mini", type: "text" },
      OPENAI_API_KEY: { value: key, type: "secret" },
      OPENAI_BASE_URL: { value: `http://fake-provider.test/v1/mine-${run}`, type: "text" },
    };
    const { threadId } = await asUser(token, "POST", "/threads", { agent: "faults", env }, 201);
    await asUser(token, "POST", `/threads/${threadId}/messages`, { content: "hello" }, 202);
    await stubOf(threadId).waitIdle();
    const { lastTurn } = await asUser(token, "GET", `/threads/${threadId}`, undefined, 200);
    expect(lastTurn.error).toContain(`POST http://fake-provider.test/v1/mine-${run}/responses`);
  });
});
