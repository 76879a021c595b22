/**
 * A detached agent run (`background: true`) cut by a restart between recording its run and
 * storing its call's result, its child deleted by its owner meanwhile: the call's recovery does not
 * make the child again (it did: the lookup read "not found", and the run, its write included,
 * started over in a new child under the same id); what it did cannot be told, so the call waits for
 * a person, as a waited agent call does. Cut before its child was made (no run recorded), the run
 * starts after the restart (review 24b: d742ea4 parked that one too).
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, runTurn, until } from "../helpers.js";
import { type G, g } from "../calls/hold.js";

const settled = (id: string) =>
  until(async () => !["started", undefined].includes((await callsOf(id)).find((c) => c.callId === "p1")?.status), "the call to be recovered", 20_000).catch(() => undefined);

describe("a detached run cut by a restart", () => {
  it("after its run was recorded, its child deleted meanwhile: not started again in a new child; the call waits for a person", async () => {
    const id = await createThread({ agent: "bg_lead" });
    await runTurn(id, "research", [{ toolCalls: [{ id: "p1", name: "bg_careful", arguments: { input: "question" } }] }, { text: "Started." }]);
    const [run] = await inThread(id, (t) => t.schedules.runs.list() as Array<{ childThreadId: string }>);
    const child = run!.childThreadId;
    expect((await json("DELETE", `/threads/${child}`)).status).toBe(200);
    // What a crash before the call's result was stored leaves: its row started, its run recorded.
    await inThread(id, (t) => t.ctx.storage.sql.exec("UPDATE calls SET status = 'started', result = NULL, finished_at = NULL WHERE call_id = 'p1'"));
    await inThread(id, (t) => t.ctx.abort("restart before the call's result was stored")).catch(() => undefined);
    await settled(id);
    expect({ call: (await callsOf(id)).find((c) => c.callId === "p1")?.status, child: (await json("GET", `/threads/${child}`)).status }).toEqual({ call: "parked", child: 404 });
  }, 40_000);

  it("before its child was made: the run starts after the restart", async () => {
    const id = await createThread({ agent: "bg_lead" });
    await inThread(id, (t) => {
      const peers = t.world.peers;
      const gate: G = { held: false };
      gate.promise = new Promise<void>((r) => (gate.open = r));
      g.__bg_never = gate;
      // Held before the real create: no child is made in this instance.
      peers.create = async (_owner: unknown, threadId: string) => {
        gate.child = threadId;
        gate.held = true;
        await gate.promise;
        throw new Error("never reached");
      };
    });
    const post = json("POST", `/threads/${id}/messages`, {
      content: "research",
      script: [{ toolCalls: [{ id: "p1", name: "bg_researcher", arguments: { input: "question" } }] }, { text: "Started." }],
    }).catch((e) => e);
    await until(async () => g.__bg_never?.held === true, "the call to be held before its child is made");
    const child = g.__bg_never.child as string;
    await inThread(id, (t) => t.ctx.abort("restart before the child was made")).catch(() => undefined);
    await post;
    await settled(id);
    expect({ call: (await callsOf(id)).find((c) => c.callId === "p1")?.status, child: (await json("GET", `/threads/${child}`)).status }).toEqual({ call: "succeeded", child: 200 });
  }, 40_000);
});
