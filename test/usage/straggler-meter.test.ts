/**
 * A model request of a deleted thread that answers after the delete (its code ignored the cut)
 * records nothing in the thread made again on the same id: the usage ledger of the old thread's
 * meter refuses like the rest of its world, and the new thread's ledger stays its own.
 */
import { expect, it } from "vitest";
import { inThread, json } from "../helpers.js";
import { keyedThread } from "../removal-helpers.js";

type Meter = { begin(r: unknown): Promise<unknown>; answered(t: unknown, u: unknown, text: string): Promise<unknown> };
const g = globalThis as unknown as { __oldMeter?: Record<string, Meter>; __oldTicket?: Record<string, unknown> };

it("a deleted thread's request that answers late writes no usage row into the thread made again on its id", async () => {
  const { id, again } = await keyedThread("straggler-meter");
  const request = { turnId: "turn_old", step: 1, model: "openai-chat:gpt-4.1-mini", messages: [], tools: [] };
  await inThread(id, async (t) => {
    const meter = t.world.meter as Meter;
    (g.__oldMeter ??= {})[id] = meter;
    (g.__oldTicket ??= {})[id] = await meter.begin(request);
  });
  expect(await json("DELETE", `/threads/${id}`)).toEqual({ status: 200, body: { deleted: true } });
  await again();
  const late = await inThread(id, async () => {
    try {
      await g.__oldMeter![id]!.answered(g.__oldTicket![id], { inputTokens: 1000, outputTokens: 10 }, "late answer");
      return "recorded";
    } catch (e) {
      return `${(e as { code?: string }).code} ${JSON.stringify((e as { details?: unknown }).details)}`;
    }
  });
  expect(late).toBe('thread_not_found {"deleted":true}');
  expect((await json("GET", `/threads/${id}/usage`)).body.total).toMatchObject({ requests: 0 });
});
