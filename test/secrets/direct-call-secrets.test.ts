/**
 * A direct call (`POST /v1/tools/:name`, MCP `tools/call`) sends out no secret of any env level:
 * not in its result, its error, its events, nor a replay of its Idempotency-Key. The account
 * level is the one that can change between two calls of the same thread: its new secret must be
 * hidden from the very call that first reads it.
 */
import { describe, expect, it } from "vitest";
import { tapLogs } from "../../src/secrets/redact-logs.js";
import { CANARIES } from "../authz/matrix.js";
import { eventsOf, json, request } from "../helpers.js";

/** A fresh account-level secret (each call of the test plants a new one). */
const userSecret = () => `canary-user-${crypto.randomUUID().replaceAll("-", "")}`;

/** Every secret a canary thread can reach, by env name: thread, agent, prompt, Worker, account, and the one the tool sets. */
function secretsWith(user: string): Record<string, string> {
  return { ...CANARIES, CANARY_USER: user };
}

/** The secrets found in `text` (each by name), so a failure says which level leaked where. */
function leaked(where: string, text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => `${where}: ${name}`);
}

async function setAccountSecret(value: string): Promise<void> {
  const put = await json("PUT", "/account/env/CANARY_USER", { value, type: "secret" });
  expect(put.status).toBe(200);
}

async function canaryThread(extra: Record<string, unknown> = {}): Promise<string> {
  const created = await json("POST", "/threads", { agent: "canary", env: { CANARY_THREAD: { value: CANARIES.CANARY_THREAD, type: "secret" } }, ...extra });
  expect(created.status).toBe(201);
  return created.body.threadId;
}

/** Posts a direct call and returns the raw answer text (what leaves the Worker). */
async function directCall(name: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await request(`/v1/tools/${name}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe("a direct call redacts every secret level on every outgoing path", () => {
  it("result, error, events and logs of a session's calls, including an account secret changed since the thread last read it", async () => {
    let user = userSecret();
    await setAccountSecret(user);
    const id = await canaryThread();
    const found: string[] = [];
    const answers: Array<{ status: number; text: string }> = [];
    const logs: string[] = [];
    const untap = tapLogs((_level, args) => logs.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" ")));
    try {
      for (const mode of ["echo", "throw", "echo"] as const) {
        // A new account secret before each call: the thread kept the old values until this call.
        user = userSecret();
        await setAccountSecret(user);
        const answer = await directCall("leak_secrets", { input: { mode }, sessionId: id });
        answers.push(answer);
        found.push(...leaked(`${mode} answer`, answer.text, secretsWith(user)));
        const logged = logs.splice(0).join("\n");
        // The tool logs what it read ("just set", and in echo mode "leaking" and an Error).
        expect(logged).toContain(mode === "echo" ? "leaking [redacted]" : "just set [redacted]");
        found.push(...leaked(`${mode} logs`, logged, secretsWith(user)));
      }
    } finally {
      untap();
    }
    // The calls ran and read every level: the markers stand where the values were.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const [echo, thrown] = answers.map((a) => JSON.parse(a.text));
    expect(echo).toMatchObject({ ok: true, status: "succeeded" });
    for (const name of ["CANARY_THREAD", "CANARY_AGENT", "CANARY_PROMPT", "CANARY_USER", "CANARY_WORKER", "CANARY_SET"]) {
      expect(echo.result).toContain("[redacted]");
      expect(thrown.error).toContain("[redacted]");
    }
    expect(thrown).toMatchObject({ ok: false, isError: true, status: "failed" });
    const events = JSON.stringify(await eventsOf(id));
    expect(events).toContain("leak_piece");
    found.push(...leaked("events", events, secretsWith(user)));
    const calls = await request(`/threads/${id}/calls`);
    found.push(...leaked("GET calls", await calls.text(), secretsWith(user)));
    expect(found).toEqual([]);
  });

  it("a scratch-thread call, a continuation-token call, an Idempotency-Key replay and MCP tools/call", async () => {
    const user = userSecret();
    await setAccountSecret(user);
    const secrets = secretsWith(user);
    const found: string[] = [];
    // No session: a scratch thread reads the account and Worker levels.
    for (const name of ["CANARY_USER", "CANARY_WORKER"]) {
      const scratch = await directCall("read_env", { input: { name } });
      expect(JSON.parse(scratch.text)).toMatchObject({ ok: true, result: "[redacted]|secret", scratchWorkspace: true });
      found.push(...leaked(`scratch ${name}`, scratch.text, secrets));
    }
    // A continuation token that names a canary thread.
    const token = `test:secrets-${crypto.randomUUID()}`;
    await canaryThread({ continuationToken: token });
    const viaToken = await directCall("leak_secrets", { input: { mode: "echo" }, continuationToken: token });
    expect(viaToken.status).toBe(200);
    found.push(...leaked("token answer", viaToken.text, secrets));
    // The first answer under a key is kept and replayed: neither copy carries a secret.
    const key = { "idempotency-key": `secrets-${crypto.randomUUID()}` };
    const first = await directCall("read_env", { input: { name: "CANARY_USER" } }, key);
    const replay = await directCall("read_env", { input: { name: "CANARY_USER" } }, key);
    expect(replay.text).toBe(first.text);
    found.push(...leaked("idempotent answer", first.text, secrets), ...leaked("replay", replay.text, secrets));
    // MCP runs the same direct call.
    const mcp = await request("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_env", arguments: { name: "CANARY_USER" } } }),
    });
    const mcpText = await mcp.text();
    expect(mcpText).toContain("[redacted]");
    found.push(...leaked("mcp", mcpText, secrets));
    expect(found).toEqual([]);
  });
});
