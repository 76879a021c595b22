/**
 * What runs on side b, or inside a prompt called as a tool, reads its own execution's tool
 * catalog, never side a's: the `runCode` import check (`uses`), `progressArgument` while a step
 * streams, and the `timeArgs` names a thread with `asOf` checks when it is created.
 */
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../src/protocol.js";
import { callsOf, createThread, eventsOf, json, runTurn } from "../helpers.js";

const CODE = "import { record_call } from 'tools';\nexport default async () => { const r = await record_call({ n: 7 }); return r.n }";
/** One step calling the two tools side a does not offer: a progressArgument tool, and runCode over record_call. */
const STEP = { toolCalls: [{ id: "p", name: "search_docs", arguments: { query: "late parcel" } }, { id: "c", name: "run_code", arguments: { source: CODE } }] };

/** Checks both calls of STEP ran, and `p` was announced while its step streamed (before the step's model_step). */
async function expectOwnCatalog(id: string) {
  const calls = Object.fromEntries((await callsOf(id)).map((c) => [c.callId, c]));
  expect(calls.c).toMatchObject({ status: "succeeded", result: { result: "7" } });
  expect(calls.p).toMatchObject({ status: "succeeded" });
  expect(Object.values(calls).filter((c) => c.toolName === "record_call" && (c as { parentCallId?: string }).parentCallId === "c").map((c) => c.status)).toEqual(["succeeded"]);
  const events = await eventsOf(id);
  const started = events.filter((e) => e.type === "tool_call_started" && (e.data as { callId: string }).callId === "p");
  expect(started).toHaveLength(1);
  expect(started[0]!.data).toMatchObject({ progress: "late parcel" });
  const step = events.find((e): e is EventFrame & { data: { toolCalls: Array<{ id: string }> } } => e.type === "model_step" && (e.data as any).toolCalls?.some((c: { id: string }) => c.id === "p"));
  expect(step).toBeDefined();
  expect(started[0]!.seq).toBeLessThan(step!.seq);
}

describe("each execution reads its own tool catalog", () => {
  it("side b: runCode imports side b's tools, and its progressArgument announces while the step streams", async () => {
    const id = await createThread({ agent: "catalog_side_b" });
    await runTurn(id, "go", [{ text: "side a says hello" }, STEP, { text: "side b is done" }, { text: "side a is done" }]);
    await expectOwnCatalog(id);
  });

  it("a nested prompt: runCode imports the prompt's tools, and its progressArgument announces while the step streams", async () => {
    const id = await createThread({ agent: "catalog_nested" });
    await runTurn(id, "go", [{ toolCalls: [{ id: "n", name: "catalog_inner", arguments: { input: "look it up" } }] }, STEP, { text: "inner done" }, { text: "done" }]);
    expect((await callsOf(id)).find((c) => c.callId === "n")).toMatchObject({ status: "succeeded", result: { result: "inner done" } });
    await expectOwnCatalog(id);
  });

  for (const agent of ["catalog_side_b_time", "catalog_nested_time"]) {
    it(`timeArgs at create: a thread with asOf refuses a misspelled name that only ${agent === "catalog_side_b_time" ? "side b" : "a nested prompt"} offers`, async () => {
      expect((await json("POST", "/threads", { agent })).status).toBe(201);
      const refused = await json("POST", "/threads", { agent, asOf: "2025-01-01T00:00:00Z" });
      expect(refused.status).toBe(500);
      expect(refused.body.error).toMatchObject({ code: "invalid_config", details: { tool: "misnamed_time", missing: ["untill"] } });
    });
  }
});
