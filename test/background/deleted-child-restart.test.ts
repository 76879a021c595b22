/**
 * A detached agent run (`background: true`) cut by a restart after its child was made and before
 * the call's result was stored, with the child deleted by its owner meanwhile: the call's recovery
 * does not make the child again (it did: the lookup read "not found", and the run, its write
 * included, started over in a new child under the same id). What it did cannot be told, so the call
 * waits for a person, as a waited agent call does.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json, until } from "../helpers.js";
import { type G, g } from "../calls/hold.js";

describe("a detached run whose child is deleted while a restart cuts its call", () => {
  it("is not started again in a new child: the call waits for a person", async () => {
    const id = await createThread({ agent: "bg_lead" });
    // Hold the parent's call right after it made the child.
    await inThread(id, (t) => {
      const peers = t.world.peers;
      const create = peers.create.bind(peers);
      const gate: G = { held: false };
      gate.promise = new Promise<void>((r) => (gate.open = r));
      g.__bg_deleted = gate;
      peers.create = async (owner: unknown, threadId: string, input: unknown) => {
        const made = await create(owner, threadId, input);
        gate.child = threadId;
        gate.held = true;
        await gate.promise;
        return made;
      };
    });
    const post = json("POST", `/threads/${id}/messages`, {
      content: "research",
      script: [{ toolCalls: [{ id: "p1", name: "bg_careful", arguments: { input: "question" } }] }, { text: "Started." }],
    }).catch((e) => e);
    await until(async () => g.__bg_deleted?.held === true, "the child to be made and the call held");
    const child = g.__bg_deleted.child as string;
    expect((await json("DELETE", `/threads/${child}`)).status).toBe(200);
    await inThread(id, (t) => t.ctx.abort("restart while the call is held")).catch(() => undefined);
    await post;
    await until(async () => (await callsOf(id)).find((c) => c.callId === "p1")?.status === "parked", "the call to park", 20_000).catch(() => undefined);
    expect({ call: (await callsOf(id)).find((c) => c.callId === "p1")?.status, child: (await json("GET", `/threads/${child}`)).status }).toEqual({ call: "parked", child: 404 });
  }, 40_000);
});
