/**
 * One rule for a failing effect or approval predicate, on every path a call takes: a model step,
 * a direct call (at rest and during a turn), `invokeTool`, `queueTool` and an MCP call each end
 * the call with the same error result naming the predicate; nothing runs and siblings go on.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { callsOf, createThread, json, request, runTurn, stubOf, until } from "../helpers.js";

/** Each way the `faulty` fixture's predicates fail, and the error result that must follow. */
const FAULTS = [
  { site: "effect", mode: "throw", error: 'tool "faulty": its effect predicate failed: effect broke on purpose; the call did not run' },
  {
    site: "effect",
    mode: "garbage",
    error: 'tool "faulty": its effect predicate failed: it returned {"status":"maybe","not":"what was asked"}, not one of read, write, idempotent or reconcilable; the call did not run',
  },
  { site: "needsApproval", mode: "throw", error: 'tool "faulty": needsApproval failed: needsApproval broke on purpose; the call did not run' },
  { site: "needsApproval", mode: "garbage", error: 'tool "faulty": needsApproval failed: it returned {"status":"maybe","not":"what was asked"}, not a boolean; the call did not run' },
] as const;

/** The one call of `faulty` a path made, as recorded. */
async function faultyCall(id: string, callId?: string) {
  const calls = (await callsOf(id)).filter((c) => c.toolName === "faulty" && (callId === undefined || c.callId === callId));
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

describe("a failing effect or approval predicate ends its call with one error result, on every path", () => {
  it("a model step: the call fails naming the predicate, its sibling runs", async () => {
    for (const f of FAULTS) {
      const id = await createThread({ agent: "predicates" });
      await runTurn(id, "go", [{ toolCalls: [{ id: "f", name: "faulty", arguments: { site: f.site, mode: f.mode } }, { id: "s", name: "record_call", arguments: {} }] }, { text: "done" }]);
      expect(await faultyCall(id, "f")).toMatchObject({ status: "failed", attempts: 0, result: { status: "error", error: f.error } });
      expect((await callsOf(id)).find((c) => c.callId === "s")!.status).toBe("succeeded");
    }
  });

  it("a direct call at rest answers 200 with the error result", async () => {
    const id = await createThread({ agent: "predicates" });
    for (const f of FAULTS) {
      const res = await json("POST", "/v1/tools/faulty", { input: { site: f.site, mode: f.mode }, sessionId: id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: false, isError: true, status: "failed", error: f.error });
    }
  });

  it("a direct call while a turn runs answers the same error result, never internal_error", async () => {
    const id = await createThread({ agent: "predicates" });
    const posted = await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "slow", name: "slow_read", arguments: { ms: 3000 } }] }, { text: "done" }] });
    expect(posted.status).toBe(202);
    await until(async () => (await callsOf(id)).some((c) => c.callId === "slow" && c.status === "started"), "the turn's slow read to start");
    // Busy-ness is judged by the effect, so a failing effect predicate reaches the rule here; a
    // call whose effect is a write is refused as busy before its approval predicate is asked.
    for (const f of FAULTS.filter((f) => f.site === "effect")) {
      const res = await json("POST", "/v1/tools/faulty", { input: { site: f.site, mode: f.mode }, sessionId: id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: false, isError: true, status: "failed", error: f.error });
    }
    const busy = await json("POST", "/v1/tools/faulty", { input: { site: "needsApproval", mode: "throw" }, sessionId: id });
    expect(busy).toMatchObject({ status: 409, body: { error: { code: "session_busy" } } });
    expect((await callsOf(id)).find((c) => c.callId === "slow")!.status).toBe("started");
    await json("POST", `/threads/${id}/stop`, {});
    await stubOf(id).waitIdle();
  });

  it("invokeTool: the nested call fails naming the predicate and its parent gets that result", async () => {
    for (const f of FAULTS) {
      const id = await createThread({ agent: "predicates" });
      const args = { mode: "invoke", tool: "faulty", args: { site: f.site, mode: f.mode } };
      await runTurn(id, "go", [{ toolCalls: [{ id: "d", name: "delegate", arguments: args }, { id: "s", name: "record_call", arguments: {} }] }, { text: "done" }]);
      expect(await faultyCall(id)).toMatchObject({ callId: "d.invoke1", source: "invoke", status: "failed", attempts: 0, result: { status: "error", error: f.error } });
      const parent = (await callsOf(id)).find((c) => c.callId === "d")!;
      expect(parent.result!.result).toBe(`invoked faulty: ${JSON.stringify({ status: "error", error: f.error })}`);
      expect((await callsOf(id)).find((c) => c.callId === "s")!.status).toBe("succeeded");
    }
  });

  it("queueTool: the queued call fails naming the predicate", async () => {
    for (const f of FAULTS) {
      const id = await createThread({ agent: "predicates" });
      const args = { mode: "queue", tool: "faulty", args: { site: f.site, mode: f.mode } };
      await runTurn(id, "go", [{ toolCalls: [{ id: "d", name: "delegate", arguments: args }] }, { text: "done" }]);
      expect(await faultyCall(id)).toMatchObject({ callId: "d.queue1", source: "queue", status: "failed", attempts: 0, result: { status: "error", error: f.error } });
    }
  });

  it("an MCP tools/call answers isError with the same text", async () => {
    const id = await createThread({ agent: "predicates" });
    const client = new Client({ name: "weft-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: (url, init) => request(new URL(url).pathname, init) }));
    try {
      for (const f of FAULTS) {
        const answer = await client.callTool({ name: "faulty", arguments: { site: f.site, mode: f.mode }, _meta: { "weft/sessionId": id } });
        expect(answer.isError).toBe(true);
        expect((answer.content as Array<{ text: string }>)[0]!.text).toBe(f.error);
        expect(answer._meta).toMatchObject({ "weft/status": "failed" });
      }
    } finally {
      await client.close();
    }
    expect((await callsOf(id)).map((c) => c.status)).toEqual(["failed", "failed", "failed", "failed"]);
  });
});
