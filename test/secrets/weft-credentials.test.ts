/**
 * weft's own credentials (`WEFT_JWT_SECRET`, `WEFT_API_KEYS`) are not thread env: no tool may read
 * them (a tool that echoes `state.env(name)` for a name a user gives, or transforms the value,
 * would hand them out), so a thread's redactor need not hold them and can be no oracle for them.
 * Logs are still cleaned of them.
 */
import { describe, expect, it } from "vitest";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { createThread, inThread, json, stubOf } from "../helpers.js";

const JWT_SECRET = "weft-test-jwt-secret-not-for-production";

describe("weft's own credentials", () => {
  for (const name of ["WEFT_JWT_SECRET", "WEFT_API_KEYS"]) {
    it(`${name} of the Worker is not readable through state.env`, async () => {
      const id = await createThread();
      const read = (await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name } })).body;
      expect(read.isError, JSON.stringify(read)).toBe(true);
      expect(read.error).toContain(`environment value "${name}" is not set`);
    });
  }

  it("a thread's redactor holds the secrets its code received and not weft's credentials", async () => {
    const id = await createThread();
    expect((await json("POST", "/v1/tools/read_env", { sessionId: id, input: { name: "CANARY_WORKER" } })).body.result).toBe("[redacted]|secret");
    const names = await inThread(id, (instance) => (instance.secrets.redactor().secrets as Array<{ name: string }>).map((s) => s.name));
    expect(names).toContain("CANARY_WORKER");
    expect(names).not.toContain("WEFT_JWT_SECRET");
    expect(names).not.toContain("WEFT_API_KEYS");
  });

  it("the Worker's answers are no oracle for them: a user's own text holding WEFT_JWT_SECRET comes back as written", async () => {
    // A user who guesses the secret and stores the guesses where an answer echoes them would see
    // which one the Worker redacts (about 25,000 40-character guesses in one 1 MiB env value).
    const guesses = `weft-test-jwt-secret-for-production ${JWT_SECRET} changeme`;
    expect((await json("PUT", "/account/env/CREDENTIAL_PROBE", { value: guesses, type: "text" })).status).toBe(200);
    const listed = await json("GET", "/account/env");
    expect(listed.body.env.CREDENTIAL_PROBE).toEqual({ value: guesses, type: "text" });
    const id = await createThread();
    expect((await json("POST", `/threads/${id}/messages`, { content: guesses, script: [{ text: "ok" }] })).status).toBe(202);
    await stubOf(id).waitIdle();
    const messages = await json("GET", `/threads/${id}/messages`);
    expect(messages.body.messages[0]).toMatchObject({ role: "user", content: guesses });
    await json("DELETE", "/account/env/CREDENTIAL_PROBE");
  });

  it("a thread's console output is still cleaned of them", async () => {
    const id = await createThread();
    const seen: unknown[][] = [];
    const stop = tapLogs((_level, args) => void seen.push(args));
    try {
      await inThread(id, () => console.log(`token ${JWT_SECRET} end`));
    } finally {
      stop();
    }
    expect(seen.flat()).toContain("token [redacted] end");
  });
});
