import { describe, expect, it } from "vitest";
import { createThread, inThread, json } from "../helpers.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 4_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(20)) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
  }
}

/** Six steps, each a 150 ms read beside a quick one: the turn runs for about a second. */
const script = [
  ...Array.from({ length: 6 }, (_, i) => ({
    text: `step ${i + 1}`,
    toolCalls: [
      { id: `slow_${i}`, name: "slow_read", arguments: { ms: 150 } },
      { id: `echo_${i}`, name: "echo_json_schema", arguments: { city: `city ${i + 1}` } },
    ],
  })),
  { text: "all done" },
];

const threadInfo = async (id: string) => (await json("GET", `/threads/${id}`)).body;

describe("a turn cut by a restart", () => {
  it("goes on as soon as the restarted thread is woken by any request, even when its watchdog alarm is far away", async () => {
    const id = await createThread({ agent: "faults" });
    expect((await json("POST", `/threads/${id}/messages`, { content: "go", script })).status).toBe(202);
    await until(() => threadInfo(id), (info) => (info.lastTurn?.modelSteps?.length ?? 0) >= 2, "two model steps");
    // What a restart that also cuts the alarm handler resuming the turn leaves behind: the runtime
    // retries that handler only after its backoff (2 s, 4 s, ... then drops it). Modelled as an
    // alarm ten minutes away, then the restart itself.
    await inThread(id, (instance) => instance.ctx.storage.setAlarm(Date.now() + 600_000));
    await inThread(id, (instance) => instance.ctx.abort("restart mid-turn")).catch(() => undefined);
    // A read wakes the thread; nothing else happens, and no alarm is run.
    const info = await until(() => threadInfo(id), (i) => i.lastTurn?.status !== "running", "the cut turn to end");
    expect(info.lastTurn).toMatchObject({ status: "completed", steps: 7 });
    const messages = (await json("GET", `/threads/${id}/messages?limit=1000`)).body.messages as { role: string; content: string }[];
    expect(messages.at(-1)).toMatchObject({ role: "assistant", content: "all done" });
  });
});
