/**
 * Walks every place the pipeline calls author code (effect predicate, needsApproval, execute,
 * outputSchema, dryRunResult, reconcile.lookup, a system prompt function, each hook), makes it
 * throw and return garbage, and checks the same things each time: no 5xx answer, every call ends
 * with exactly one result, and the stored history is valid for every provider's wire format.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/protocol.js";
import { wireProblems } from "../fuzz/wire.js";
import { callsOf, createThread, eventsOf, inThread, json, effectRuns, rawStub, stubOf } from "../helpers.js";

const MODES = ["throw", "garbage"] as const;
const FINAL = ["succeeded", "failed", "denied", "aborted"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Decides whatever waits (approve, or settle a parked call), lets the thread finish, and lists what is wrong. */
async function judge(id: string, statuses: number[]): Promise<string[]> {
  const problems = statuses.filter((s) => s >= 500).map((s) => `answered ${s}`);
  for (let round = 0; round < 20; round++) {
    await stubOf(id).waitIdle();
    const calls = await callsOf(id);
    const waiting = calls.filter((c) => c.status === "awaiting_approval" || c.status === "parked");
    if (waiting.length === 0) break;
    for (const c of waiting) {
      const res =
        c.status === "parked"
          ? await json("POST", `/threads/${id}/calls/${c.callId}/settle`, { outcome: "failed", error: "settled by the test" })
          : await json("POST", `/threads/${id}/calls/${c.callId}/approve`, {});
      if (res.status >= 500) problems.push(`deciding ${c.callId} answered ${res.status}`);
    }
  }
  await stubOf(id).waitIdle();
  const events = await eventsOf(id);
  for (const call of await callsOf(id)) {
    const results = events.filter((e) => e.type === "tool_call_finished" && (e.data as { callId: string }).callId === call.callId).length;
    if (!FINAL.includes(call.status) || results !== 1) problems.push(`${call.callId} (${call.toolName}) is ${call.status} with ${results} results`);
  }
  const messages = (await json("GET", `/threads/${id}/messages?limit=1000&includeSilent=true`)).body.messages as Message[];
  const asked = messages.flatMap((m) => m.toolCalls?.map((c) => c.id) ?? []).sort();
  const answered = messages.filter((m) => m.role === "tool").map((m) => m.toolCallId).sort();
  if (JSON.stringify(asked) !== JSON.stringify(answered)) problems.push(`history: calls ${asked} answered by ${answered}`);
  problems.push(...(await wireProblems(messages, [])));
  if ((await json("GET", `/threads/${id}`)).body.status !== "idle") problems.push("thread not idle");
  return problems;
}

async function turnWith(id: string, calls: Array<{ id: string; name: string; arguments: unknown }>): Promise<number> {
  return (await json("POST", `/threads/${id}/messages`, { content: "go", script: [{ toolCalls: calls }, { text: "done" }] })).status;
}

describe("every place author code runs: throwing or returning garbage ends as one result, never a 500", () => {
  for (const site of ["effect", "needsApproval", "execute", "outputSchema"]) {
    for (const mode of MODES) {
      it(`${site} (${mode}), in a turn beside a sibling call and as a direct call`, async () => {
        const id = await createThread({ agent: "faulty_system" });
        const posted = await turnWith(id, [
          { id: "f", name: "faulty", arguments: { site, mode } },
          { id: "sib", name: "record_call", arguments: {} },
        ]);
        const direct = await json("POST", "/v1/tools/faulty", { input: { site, mode }, sessionId: id });
        expect(await judge(id, [posted, direct.status])).toEqual([]);
        // The sibling of a failing call still ran.
        expect((await callsOf(id)).find((c) => c.callId === "sib")!.status).toBe("succeeded");
      });
    }
  }

  for (const mode of MODES) {
    it(`dryRunResult (${mode}) on a dry-run thread`, async () => {
      const id = await createThread({ agent: "faulty_system", dryRun: true });
      const posted = await turnWith(id, [{ id: "f", name: "faulty", arguments: { site: "dryRunResult", mode } }]);
      const direct = await json("POST", "/v1/tools/faulty", { input: { site: "dryRunResult", mode }, sessionId: id });
      expect(await judge(id, [posted, direct.status])).toEqual([]);
      expect((await callsOf(id)).find((c) => c.callId === "f")).toMatchObject({ stubbed: true });
    });

    it(`reconcile.lookup (${mode}) when recovery asks it after a crash`, async () => {
      const id = await createThread({ agent: "faulty_system", arguments: { site: "lookup", mode } });
      const posted = await turnWith(id, [{ id: "r", name: "faulty_lookup", arguments: {} }]);
      for (let i = 0; i < 200 && (await effectRuns(id, "r")).runs === 0; i++) await sleep(10);
      await inThread(id, (i) => i.ctx.abort("crash inside execute")).catch(() => undefined);
      await runDurableObjectAlarm(rawStub(id)).catch(() => undefined);
      expect(await judge(id, [posted])).toEqual([]);
      expect((await effectRuns(id, "r")).runs).toBe(1);
    });

    it(`a system prompt function (${mode})`, async () => {
      const id = await createThread({ agent: "faulty_system", arguments: { site: "system", mode } });
      const posted = await turnWith(id, [{ id: "c", name: "record_call", arguments: {} }]);
      expect(await judge(id, [posted])).toEqual([]);
      const turn = (await json("GET", `/threads/${id}`)).body.lastTurn;
      expect(turn.status === "completed" || /system/.test(turn.error ?? "")).toBe(true);
    });
  }

  for (const hook of ["before_create_message", "after_create_message", "filter_messages", "tool_call_started", "tool_call_finished"]) {
    it(`the ${hook} hook (throw)`, async () => {
      const id = await createThread({ agent: "hooked", arguments: { throwIn: hook } });
      const posted = await turnWith(id, [{ id: "h", name: "remember", arguments: { word: "w" } }]);
      const direct = await json("POST", "/v1/tools/remember", { input: { word: "w2" }, sessionId: id });
      expect(await judge(id, [posted, direct.status])).toEqual([]);
    });
  }
});
