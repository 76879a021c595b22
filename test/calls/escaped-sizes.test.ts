/**
 * Size checks measure what is stored: JSON text, escapes counted. A 1 MiB message (or tool input)
 * of control characters or quotes is 1 MiB of UTF-8 but up to 6 MiB of JSON; under Cloudflare's
 * row limit (enforced by the test worker, test/row-limit.ts) it must be refused cleanly before
 * anything is written, or stored whole: never a 500, never half-written.
 */
import { describe, expect, it } from "vitest";
import { callsOf, createThread, eventsOf, inThread, messagesOf, request, stubOf } from "../helpers.js";

const MIB = 1024 * 1024;

/** What the thread holds: its messages, events, inbox and calls, as counts. */
async function holdings(id: string): Promise<Record<string, number>> {
  return inThread(id, (i) => {
    const count = (table: string) => i.ctx.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n as number;
    return { messages: count("messages"), events: count("events"), calls: count("calls"), inbox: count("inbox") };
  });
}

const post = (path: string, body: string) => request(path, { method: "POST", headers: { "content-type": "application/json" }, body });

describe("size checks measure the stored (escaped JSON) form", () => {
  for (const [what, char] of [
    ["control characters", "\u0001"],
    ["quotes", '"'],
    ["backslashes", "\\"],
  ] as const) {
    it(`a 1 MiB message of ${what} is refused with 413 naming content and the limit, nothing written`, async () => {
      const id = await createThread();
      const before = await holdings(id);
      const res = await post(`/threads/${id}/messages`, JSON.stringify({ content: char.repeat(MIB) }));
      const body = await res.json<any>();
      expect([res.status, body.error?.code, body.error?.details?.path]).toEqual([413, "payload_too_large", ["content"]]);
      expect(body.error.message).toMatch(/^content: \d+ bytes as stored \(JSON\), over the 1048576-byte limit of a message/);
      expect(await holdings(id)).toEqual(before);
      // A message whose stored form fits is taken and streamed whole.
      const fits = char.repeat(MIB / 8);
      const ok = await post(`/threads/${id}/messages`, JSON.stringify({ content: fits, script: [{ text: "ok" }] }));
      expect(ok.status).toBe(202);
      await stubOf(id).waitIdle();
      expect((await messagesOf(id)).find((m) => m.role === "user")!.content).toBe(fits);
      const frames = await eventsOf(id);
      expect(frames.some((f) => (f.data as { content?: string })?.content === fits || JSON.stringify(f.data).includes(JSON.stringify(fits).slice(1, -1)))).toBe(true);
    });

    it(`a direct call whose input is 1 MiB of ${what} as stored is refused with 413 naming input, nothing written`, async () => {
      const id = await createThread({ agent: "robustness" });
      const before = await holdings(id);
      const note = char.repeat(MIB / 2 + 1);
      const res = await post("/v1/tools/record_call", JSON.stringify({ sessionId: id, input: { note } }));
      const body = await res.json<any>();
      expect([res.status, body.error?.code, body.error?.details?.path]).toEqual([413, "payload_too_large", ["input"]]);
      expect(await holdings(id)).toEqual(before);
      expect(await callsOf(id)).toEqual([]);
      // An input whose JSON text is just within the limit is stored and answered whole.
      const most = char.repeat(Math.floor((MIB - 64) / JSON.stringify(char).slice(1, -1).length));
      const fits = await post("/v1/tools/record_call", JSON.stringify({ sessionId: id, input: { note: most } }));
      expect(fits.status).toBe(200);
      const [call] = await callsOf(id);
      expect((call!.input as { note: string }).note).toBe(most);
    });
  }
});
