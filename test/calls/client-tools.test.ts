/**
 * Client tools (`executionMode: "client"`): the model's call waits, parked, for the client's
 * answer (`POST /threads/:id/calls/:callId/result`); the answer is recorded once, through the
 * output check, and the turn goes on with it. A stop ends the wait; a restart keeps it.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { answerClientCall as answer, callsOf, createThread, eventsOf, inThread, json, keyed, messagesOf, rawStub, stubOf, waitingForClient } from "../helpers.js";

describe("a client tool's call", () => {
  it("waits for the client, which the events tell; the answer is recorded once and the next model step sees it", async () => {
    const id = await waitingForClient();
    expect((await callsOf(id)).map((c) => `${c.callId}:${c.status}`)).toEqual(["pick:parked"]);
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    expect((await messagesOf(id)).map((m) => m.role)).toEqual(["user", "assistant"]);
    const parked = (await eventsOf(id)).find((e) => e.type === "tool_call_parked");
    expect(parked?.data).toEqual({ callId: "pick", toolName: "pick_file", reason: expect.stringContaining("client"), client: true, input: { prompt: "Pick the report" } });
    expect((await eventsOf(id)).find((e) => e.type === "turn_waiting")?.data).toMatchObject({ callIds: ["pick"] });

    const answered = await answer(id, { result: { name: "report.pdf", bytes: 1200 } });
    expect(answered).toMatchObject({ status: 200, body: { callId: "pick", status: "succeeded", result: { status: "success", result: '{"name":"report.pdf","bytes":1200}' } } });
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ status: "succeeded", decidedBy: "tester" });
    const messages = await messagesOf(id);
    expect(messages.map((m) => `${m.role}:${m.toolCallId ?? ""}`)).toEqual(["user:", "assistant:", "tool:pick", "assistant:"]);
    expect(messages[2]!.content).toBe('{"name":"report.pdf","bytes":1200}');
    expect(messages.at(-1)!.content).toBe("got it");
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("idle");

    // A second answer is refused, and records nothing.
    const events = (await eventsOf(id)).length;
    const again = await answer(id, { result: { name: "other.pdf", bytes: 1 } });
    expect([again.status, again.body.error.code]).toEqual([409, "call_not_waiting"]);
    await stubOf(id).waitIdle();
    expect((await eventsOf(id)).length).toBe(events);
    expect((await callsOf(id))[0]!.result).toEqual({ status: "success", result: '{"name":"report.pdf","bytes":1200}' });
  });

  it("an error answer is an error result the model sees; a result failing outputSchema becomes one", async () => {
    const id = await waitingForClient();
    expect((await answer(id, { error: "the user closed the dialog" })).body).toMatchObject({ status: "failed", result: { status: "error", error: "the user closed the dialog" } });
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).find((m) => m.toolCallId === "pick")!.content).toBe("the user closed the dialog");

    const other = await waitingForClient();
    const bad = await answer(other, { result: { name: 7 } });
    expect(bad.body).toMatchObject({ status: "failed", result: { status: "error", error: expect.stringMatching(/^invalid_tool_output: the client's answer does not match outputSchema: result\.name: /) } });
    // Nothing ran in weft: no "effect happened", and the issue is the answer's, not an input's.
    expect(bad.body.result.error).not.toMatch(/effect happened|input: /);
    expect((await callsOf(other))[0]).toMatchObject({ errorCode: "invalid_tool_output", errorDetails: { path: ["name"] } });
    // An answer of the wrong type altogether is named by the body's field, not as an input.
    const third = await waitingForClient();
    expect((await answer(third, { result: "report.pdf" })).body.result.error).toMatch(/^invalid_tool_output: the client's answer does not match outputSchema: result: expected object/);
  });

  it("refuses a bad body, an unknown call, another user, and a call that is not a client tool's", async () => {
    const id = await waitingForClient();
    const both = await answer(id, { result: "x", error: "y" });
    expect([both.status, both.body.error.code]).toEqual([400, "invalid_request"]);
    expect((await answer(id, {})).status).toBe(400);
    const missing = await answer(id, { result: "x" }, "nope");
    expect([missing.status, missing.body.error.code]).toEqual([404, "call_not_found"]);
    const stranger = await json("POST", `/threads/${id}/calls/pick/result`, { result: "x" }, "alice");
    expect([stranger.status, stranger.body.error.code]).toEqual([404, "thread_not_found"]);
    expect((await callsOf(id))[0]!.status).toBe("parked");
    // A person's retry has nothing to run; the call still waits for its answer.
    const retry = await json("POST", `/threads/${id}/calls/pick/settle`, { outcome: "retry" });
    expect([retry.status, retry.body.error.code]).toEqual([400, "tool_not_callable"]);

    // A call of a tool weft runs, parked for a person (as a restart leaves a write), takes no client answer.
    await inThread(id, (i) => {
      i.store.calls.insert({ callId: "w", toolName: "record_call", source: "direct", status: "started", argsText: "{}", effectKey: "k:w" });
      i.store.calls.park("w", "interrupted by a restart");
    });
    const settleIt = await answer(id, { result: "x" }, "w");
    expect([settleIt.status, settleIt.body.error.code, settleIt.body.error.message]).toEqual([409, "call_not_waiting", expect.stringContaining("settle")]);
    expect((await callsOf(id)).find((c) => c.callId === "w")!.status).toBe("parked");
  });

  it("a repeat of an answer under its Idempotency-Key gets the first answer", async () => {
    const id = await waitingForClient();
    const first = await keyed("POST", `/threads/${id}/calls/pick/result`, "answer-1", { result: { name: "a.txt", bytes: 3 } });
    const again = await keyed("POST", `/threads/${id}/calls/pick/result`, "answer-1", { result: { name: "a.txt", bytes: 3 } });
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).filter((m) => m.toolCallId === "pick")).toHaveLength(1);
  });

  it("is only the model's to call: a direct call is refused and stores nothing", async () => {
    const id = await createThread({ agent: "browser" });
    const direct = await json("POST", "/v1/tools/pick_file", { input: { prompt: "x" }, sessionId: id });
    expect([direct.status, direct.body.error.code]).toEqual([400, "tool_not_callable"]);
    expect(await callsOf(id)).toEqual([]);
  });

  it("GET /v1/tools says who runs each tool: executionMode client or provider, none for weft's own", async () => {
    const { tools } = (await json("GET", "/v1/tools")).body as { tools: Record<string, unknown>[] };
    const byName = (name: string) => tools.find((t) => t.name === name)!;
    // effect stays the class its calls are judged under (approval, dry run): undeclared is write.
    expect(byName("pick_file")).toMatchObject({ executionMode: "client", effect: "write" });
    expect(byName("web_search")).toMatchObject({ executionMode: "provider" });
    expect(byName("record_call")).not.toHaveProperty("executionMode");
  });

  it("is refused as a schedule's target when the schedule is made: no occurrence could call it", async () => {
    const id = await createThread({ agent: "browser" });
    const made = await json("POST", `/threads/${id}/schedules`, { every: "1h", target: { tool: "pick_file", input: { prompt: "x" } } });
    expect([made.status, made.body.error.code, made.body.error.details.path]).toEqual([400, "invalid_schedule", ["target", "tool"]]);
    expect(made.body.error.message).toMatch(/"pick_file" is a client tool/);
    expect((await json("GET", `/threads/${id}/schedules`)).body.schedules).toEqual([]);
    // A tool its model's provider runs is no more callable by a schedule.
    const searcher = await createThread({ agent: "searcher" });
    const provider = await json("POST", `/threads/${searcher}/schedules`, { every: "1h", target: { tool: "web_search", input: { query: "x" } } });
    expect([provider.status, provider.body.error.code, provider.body.error.details.path]).toEqual([400, "invalid_schedule", ["target", "tool"]]);
  });

  it("a stop ends the wait: the call is aborted, with the time it waited, and a late answer is refused", async () => {
    const id = await waitingForClient();
    await new Promise((r) => setTimeout(r, 60));
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ status: "aborted", result: { status: "error", error: expect.stringContaining("before the client answered") } });
    expect((await callsOf(id))[0]!.durationMs).toBeGreaterThanOrEqual(50);
    expect((await answer(id, { result: { name: "late.txt", bytes: 1 } })).body.error.code).toBe("call_not_waiting");
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("idle");
  });

  it("a restart keeps it waiting: recovery neither runs nor fails it, and the answer goes on", async () => {
    const id = await waitingForClient();
    await evictDurableObject(rawStub(id));
    await stubOf(id).waitIdle();
    expect((await callsOf(id))[0]).toMatchObject({ callId: "pick", status: "parked" });
    expect((await json("GET", `/threads/${id}`)).body.status).toBe("waiting");
    expect((await answer(id, { result: { name: "after.txt", bytes: 9 } })).body.status).toBe("succeeded");
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).at(-1)!.content).toBe("got it");
  });
});
