import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, json, effectRuns, messagesOf, request, runTurn, stubOf, until } from "../helpers.js";

describe("dry-run threads", () => {
  it("execute reads, stub writes and idempotent calls, and mark them stubbed", async () => {
    const id = await createThread({ agent: "guarantees", dryRun: true });
    await runTurn(id, "go", [
      {
        toolCalls: [
          { id: "r", name: "effect_read", arguments: {} },
          { id: "w", name: "effect_write", arguments: {} },
          { id: "i", name: "effect_idempotent", arguments: {} },
          { id: "n", name: "record_call", arguments: {} },
        ],
      },
    ]);
    const calls = await callsOf(id);
    expect(calls.map((c) => `${c.callId}:${c.stubbed === true}`)).toEqual(["r:false", "w:true", "i:true", "n:true"]);
    expect(calls[1]!.result!.result).toBe("Operation acknowledged.");
    expect((await effectRuns(id, "r")).runs).toBe(1);
    for (const key of ["w", "i"]) expect((await effectRuns(id, key)).runs).toBe(0);
    expect(await inThread(id, (i) => i.store.kv.get("count:n"))).toBeNull();
    const finished = (await eventsOf(id)).filter((e) => e.type === "tool_call_finished").map((e) => (e.data as { stubbed?: boolean }).stubbed ?? false);
    expect(finished).toEqual([false, true, true, true]);
  });

  it("answers with dryRunResult when the tool has one", async () => {
    const id = await createThread({ dryRun: true });
    await runTurn(id, "go", [{ toolCalls: [{ id: "a", name: "save_draft", arguments: { title: "t", body: "b" } }] }]);
    const [call] = await callsOf(id);
    expect(call!.stubbed).toBe(true);
    expect(call!.result!.status).toBe("success");
    expect(call!.result!.result).toBe('Would save the draft "t".');
  });
});

describe("asOf threads and timeArgs", () => {
  const asOf = "2024-06-01T00:00:00Z";
  it.each([
    [{ since: "2024-05-01T00:00:00Z", until: "2024-05-31T23:59:59+02:00" }, null],
    [{ until: "2024-05-31T00:00:00Z" }, "since: required"],
    [{ since: "yesterday", until: "2024-05-31T00:00:00Z" }, 'since: "yesterday" is not an absolute instant'],
    [{ since: "2024-05-01T00:00:00", until: "2024-05-31T00:00:00Z" }, 'since: "2024-05-01T00:00:00" is not an absolute instant with an offset'],
    [{ since: "2024-05-01T00:00:00Z", until: "2024-07-01T00:00:00Z" }, "until: 2024-07-01T00:00:00Z is later than the thread's asOf"],
  ])("checks %j", async (args, refusal) => {
    const id = await createThread({ agent: "guarantees", asOf });
    await runTurn(id, "go", [{ toolCalls: [{ id: "t", name: "telemetry", arguments: args }] }]);
    const [call] = await callsOf(id);
    if (refusal === null) {
      expect(call!.status).toBe("succeeded");
    } else {
      expect(call!.status).toBe("failed");
      expect(call!.result!.error).toContain(`invalid_tool_input: ${refusal}`);
      expect(call!.result!.error).toContain("retry with absolute ISO-8601 instants");
    }
  });

  it("ignores timeArgs without asOf, and refuses an asOf thread whose tool names a missing argument", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "t", name: "telemetry", arguments: { since: "last week" } }] }]);
    expect((await callsOf(id))[0]!.status).toBe("succeeded");
    const plain = await json("POST", "/threads", { agent: "misnamed_time" });
    expect(plain.status).toBe(201);
    const refused = await json("POST", "/threads", { agent: "misnamed_time", asOf });
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatchObject({ code: "invalid_config" });
    expect(refused.body.error.message).toContain("untill");
  });
});

describe("outputSchema and endsTurn", () => {
  it("a success that fails outputSchema is an error saying the effect happened", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [
      { toolCalls: [{ id: "bad", name: "typed_output", arguments: { broken: true } }, { id: "ok", name: "typed_output", arguments: { broken: false } }] },
    ]);
    const [bad, ok] = await callsOf(id);
    expect(bad!.status).toBe("failed");
    expect(bad!.result!.error).toMatch(/^invalid_tool_output: the tool ran and its effect happened.*id: expected string.*total/);
    expect((await effectRuns(id, "bad")).runs).toBe(1);
    expect(ok!.status).toBe("succeeded");
    const listed = (await json("GET", "/v1/tools")).body.tools.find((t: { name: string }) => t.name === "typed_output");
    expect(listed.outputSchema).toMatchObject({ type: "object", required: ["id", "total"] });
  });

  it("a successful endsTurn call ends the turn with no further model step; a failed one does not", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [
      { toolCalls: [{ id: "f1", name: "finish_turn", arguments: { fail: true } }] },
      { toolCalls: [{ id: "f2", name: "finish_turn", arguments: {} }] },
      { text: "never said" },
    ]);
    const messages = await messagesOf(id);
    expect(messages.map((m) => m.content)).not.toContain("never said");
    expect(messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "f2", content: "handed off" });
    const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
    expect(turn).toMatchObject({ status: "completed", steps: 2 });
  });
});

describe("result size", () => {
  it("persists a 3 MB result in full while the model sees a capped one with a notice", async () => {
    const id = await createThread({ agent: "guarantees" });
    const bytes = 3 * 1024 * 1024;
    await runTurn(id, "go", [{ toolCalls: [{ id: "big", name: "big_result", arguments: { bytes, attach: true } }] }]);
    const [call] = await callsOf(id);
    expect(call!.status).toBe("succeeded");
    expect(call!.fullResultPath).toBe("calls/big/result.txt");
    const tool = (await messagesOf(id)).find((m) => m.toolCallId === "big")!;
    expect(new TextEncoder().encode(tool.content).byteLength).toBeLessThan(4096 + 200);
    expect(tool.content).toContain(`truncated to 4096 of ${bytes} bytes`);
    expect(tool.content).toContain(`call read_file with {"path":"calls/big/result.txt","offset":4096} to read the rest`);
    const full = await request(`/threads/${id}/files/calls/big/result.txt`);
    expect(full.status).toBe(200);
    const text = await full.text();
    expect(text.length).toBe(bytes);
    expect(text.startsWith("abcdefghij")).toBe(true);
    const ref = call!.result!.attachments![0] as { path: string; size: number; mimeType: string };
    expect(ref).toMatchObject({ name: "pixel.png", mimeType: "image/png", size: 70 });
    const png = await request(`/threads/${id}/files/${ref.path}`);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await png.arrayBuffer()).slice(1, 4)).toEqual(new TextEncoder().encode("PNG"));
  });
});

describe("stopping a thread while a call runs", () => {
  it("never records success: a read is aborted, a write is parked, and neither is re-run", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, {
      content: "go",
      script: [{ toolCalls: [{ id: "w", name: "effect_write", arguments: { hang: true } }, { id: "later", name: "effect_read", arguments: {} }] }],
    });
    await new Promise((r) => setTimeout(r, 50));
    expect((await json("POST", `/threads/${id}/stop`)).body).toEqual({ stopped: true });
    await stubOf(id).waitIdle();
    const calls = await callsOf(id);
    expect(calls.find((c) => c.callId === "w")).toMatchObject({ status: "parked" });
    expect(calls.find((c) => c.callId === "w")!.parkReason).toContain("stopped");
    expect(calls.find((c) => c.callId === "later")).toMatchObject({ status: "aborted" });
    expect((await effectRuns(id, "later")).runs).toBe(0);
    const settled = await json("POST", `/threads/${id}/calls/w/settle`, { outcome: "failed", error: "cancelled by ops" });
    expect(settled.body.status).toBe("failed");
    expect((await effectRuns(id, "w")).runs).toBe(1);
    // The stopped turn will not resume, so the model learns the settlement from a system message.
    await stubOf(id).waitIdle();
    const last = (await messagesOf(id)).at(-1)!;
    expect(last).toMatchObject({ role: "system", content: "A person settled call w (effect_write) after its turn ended: failed: cancelled by ops" });

    // The same settlement again (a retry that lost the answer) is answered as the call stands, and tells the history nothing twice.
    const count = (await messagesOf(id)).length;
    const again = await json("POST", `/threads/${id}/calls/w/settle`, { outcome: "failed", error: "cancelled by ops" });
    expect(again).toMatchObject({ status: 200, body: { callId: "w", status: "failed" } });
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).length).toBe(count);
    // Another verdict is not the same decision.
    const other = await json("POST", `/threads/${id}/calls/w/settle`, { outcome: "failed", error: "something else" });
    expect(other).toMatchObject({ status: 409, body: { error: { code: "call_not_waiting" } } });
  });

  it("a settlement over the result cap, repeated the same way, is a repeat: compared in full, from its file", async () => {
    const id = await createThread({ agent: "guarantees" });
    await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: [{ id: "w", name: "effect_write", arguments: { hang: true } }] }] });
    await until(async () => (await callsOf(id)).some((c) => c.callId === "w" && c.status === "started"), "the write to start");
    await json("POST", `/threads/${id}/stop`);
    await stubOf(id).waitIdle();
    const result = "r".repeat(40_000);
    expect((await json("POST", `/threads/${id}/calls/w/settle`, { outcome: "succeeded", result })).status).toBe(200);
    await stubOf(id).waitIdle();
    const count = (await messagesOf(id)).length;
    expect(await json("POST", `/threads/${id}/calls/w/settle`, { outcome: "succeeded", result })).toMatchObject({ status: 200, body: { repeated: true } });
    expect((await json("POST", `/threads/${id}/calls/w/settle`, { outcome: "succeeded", result: `${result}s` })).status).toBe(409);
    await stubOf(id).waitIdle();
    expect((await messagesOf(id)).length).toBe(count);
  });
});

describe("definitions checked at first use", () => {
  it("a dynamically defined tool that breaks a rule is refused with invalid_config, and the turn goes on", async () => {
    const functions = [
      { name: "broken_args", description: "args are not an object", parameters: { type: "string" } },
      { name: "fine", description: "ok", parameters: { type: "object", properties: { a: { type: "integer" } } } },
    ];
    const id = await createThread({ agent: "bfcl", arguments: { functions } });
    await runTurn(id, "go", [{ toolCalls: [{ id: "b", name: "broken_args", arguments: {} }, { id: "f", name: "fine", arguments: { a: 1 } }] }]);
    const [broken, fine] = await callsOf(id);
    expect(broken!.result!.error).toBe('invalid_config: tool "broken_args": a JSON Schema args must have "type": "object"');
    expect(fine!.status).toBe("succeeded");
  });
});

describe("odd call ids and results", () => {
  it("keeps a capped result fetchable even when the call id holds slashes and dots", async () => {
    const id = await createThread({ agent: "guarantees" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "../../a/b", name: "big_result", arguments: { bytes: 10_000 } }] }]);
    const [call] = await callsOf(id);
    const input = JSON.parse(call!.result!.result!.match(/call read_file with (\{.*\}) to read the rest\]$/)![1]!) as { path: string; offset: number };
    expect(input.path).not.toContain("../");
    const res = await request(`/threads/${id}/files/${encodeURI(input.path)}`);
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBe(10_000);
    // The model's way to the rest takes the same odd path.
    await runTurn(id, "more", [{ toolCalls: [{ id: "more", name: "read_file", arguments: input }] }]);
    const more = (await callsOf(id)).find((c) => c.callId === "more")!;
    expect(more.status).toBe("succeeded");
    expect(more.result!.result).toMatch(/^ghijabcdef/); // byte 4096 of "abcdefghij" repeated
  });
});
