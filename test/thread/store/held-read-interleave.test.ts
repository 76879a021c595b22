/**
 * Held reads under interleavings within one synchronous step of the thread: reads that answer
 * after 0 to 40 microtask turns (around the watcher's limit), a read waiting for a timer, a write,
 * a listing and a WebSocket subscription all begun together. Whatever settles what, each socket
 * gets every frame once in seq order, the log is gap-free, and every call has one row with one
 * result and one started event before one finished event.
 */
import { describe, expect, it } from "vitest";
import type { EventFrame } from "../../../src/protocol.js";
import { CALLER_HEADER } from "../../../src/thread/api.js";
import { callsOf, createThread, eventsOf, inThread, subscribe } from "../../helpers.js";

const owner = { userId: "tester", name: "tester", roles: [], admin: false };
const TURNS = [0, 1, 3, 6, 10, 11, 12, 13, 14, 20, 40];

describe("held reads begun together with other work in one step", () => {
  it("sockets get every frame once in order, events are gap-free, each call has one result", async () => {
    const id = await createThread({ agent: "robustness" });
    const before = await subscribe(id);
    const late: EventFrame[][] = [];
    const out = await inThread(id, async (t) => {
      const pending: Promise<{ ok: boolean; value?: { callId: string; ok: boolean } }>[] = [];
      const upgrades: Promise<Response>[] = [];
      let heldSeen = 0;
      const store = t.store as { calls: { holding(): boolean }; events: { holding(): boolean } };
      /** Runs `op` after `turns` microtask turns, noting whether a read was held at that moment. */
      const at = (turns: number, op: () => void) => {
        let p: Promise<void> = Promise.resolve();
        for (let i = 0; i < turns; i++) p = p.then(() => undefined);
        void p.then(() => {
          if (store.calls.holding() || store.events.holding()) heldSeen++;
          op();
        });
      };
      // Each time a read is held, other work begins 0 to 14 microtask turns later: sockets
      // subscribe, calls are listed, the thread is read (its lastSeq).
      const calls = t.store.calls as { hold: (...a: unknown[]) => void };
      const hold = calls.hold.bind(calls);
      let holds = 0;
      calls.hold = (...a: unknown[]) => {
        hold(...a);
        const n = holds++;
        for (let k = 0; k < 15; k++) {
          if ((k + n) % 5 === 0) {
            at(k, () => upgrades.push(t.fetch(new Request(`http://thread/threads/${id}/ws`, { headers: { Upgrade: "websocket", [CALLER_HEADER]: JSON.stringify(owner) } }))));
          } else {
            at(k, () => void (k % 2 ? t.listCalls(owner) : t.info(owner)));
          }
        }
      };
      // Each read begins in a turn of its own, two of them together; a write and a timer read among them.
      for (const [i, turns] of TURNS.entries()) {
        pending.push(t.callTool(owner, { toolName: "microtask_read", input: { turns } }));
        if (i === 3) pending.push(t.callTool(owner, { toolName: "effect_write", input: { label: "w" } }));
        if (i === 5) pending.push(t.callTool(owner, { toolName: "slow_read", input: { ms: 5 } }));
        if (i === 7) pending.push(t.callTool(owner, { toolName: "microtask_read", input: { turns: 2 } }));
        await scheduler.wait(1);
      }
      const answers = await Promise.all(pending);
      for (const r of await Promise.all(upgrades)) {
        const frames: EventFrame[] = [];
        late.push(frames);
        r.webSocket!.accept();
        r.webSocket!.addEventListener("message", (e) => {
          frames.push(...([] as EventFrame[]).concat(JSON.parse(e.data as string)));
        });
      }
      return { answers: answers.map((a) => a.value!), heldSeen };
    });
    console.log("operations that found a read held:", out.heldSeen, "sockets:", late.length);
    expect(out.heldSeen).toBeGreaterThan(0);
    expect(out.answers.every((a) => a.ok)).toBe(true);
    const stored = await eventsOf(id);
    expect(stored.map((f) => f.seq)).toEqual(stored.map((_, i) => i + 1));
    const last = stored.at(-1)!.seq;
    await before.until((frames) => (frames.at(-1)?.seq ?? 0) >= last);
    before.close();
    await new Promise((r) => setTimeout(r, 50));
    // The socket opened before and the one opened inside the step (replaying from 0) each get every frame once, in order.
    expect(before.frames.map((f) => f.seq)).toEqual(stored.map((f) => f.seq));
    expect(late.length).toBeGreaterThan(0);
    for (const frames of late) expect(frames.map((f) => f.seq)).toEqual(stored.map((f) => f.seq));
    expect(before.frames).toEqual(stored);
    for (const frames of late) expect(frames).toEqual(stored);
    const trail = stored.map((f) => `${f.type}:${(f.data as { callId?: string } | null)?.callId ?? ""}`);
    for (const a of out.answers) {
      expect(trail.filter((t) => t === `tool_call_started:${a.callId}`), a.callId).toHaveLength(1);
      expect(trail.filter((t) => t === `tool_call_finished:${a.callId}`), a.callId).toHaveLength(1);
      expect(trail.indexOf(`tool_call_started:${a.callId}`)).toBeLessThan(trail.indexOf(`tool_call_finished:${a.callId}`));
    }
    const calls = await callsOf(id);
    expect(calls).toHaveLength(out.answers.length);
    expect(calls.every((c) => c.status === "succeeded")).toBe(true);
  });
});
