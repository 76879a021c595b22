import { describe, expect, it } from "vitest";
import { callsOf, createThread, inThread, json } from "../../helpers.js";
import { ROW_LIMIT_BYTES } from "../../row-limit.js";

describe("every stored row fits Cloudflare's 2 MB limit", () => {
  it("16. an emit over the event limit is an error result naming the limit; nothing oversized is stored", async () => {
    const id = await createThread({ agent: "robustness" });
    const big = await json("POST", "/v1/tools/emit_blob", { input: { bytes: 2_500_000 }, sessionId: id });
    expect(big.status).toBe(200);
    expect(big.body).toMatchObject({ ok: false, isError: true });
    expect(big.body.error).toMatch(/event "blob" is \d+ bytes, over the 1048576-byte event limit/);
    const small = await json("POST", "/v1/tools/emit_blob", { input: { bytes: 1000 }, sessionId: id });
    expect(small.body.ok).toBe(true);
    const largest = await inThread(id, (i) => i.ctx.storage.sql.exec("SELECT MAX(LENGTH(data)) AS n FROM events").one().n as number);
    expect(largest).toBeLessThan(ROW_LIMIT_BYTES);
  });

  it("16. a direct call with a large argument stores it once, so its call row fits", async () => {
    const id = await createThread({ agent: "robustness" });
    const note = "n".repeat(1_000_000);
    const res = await json("POST", "/v1/tools/record_call", { input: { note }, sessionId: id });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    const [call] = await callsOf(id);
    expect((call!.input as { note: string }).note).toBe(note);
    const row = await inThread(id, (i) =>
      i.ctx.storage.sql.exec("SELECT LENGTH(args_text) + LENGTH(COALESCE(input, '')) + LENGTH(COALESCE(result, '')) AS n FROM calls").one().n as number,
    );
    expect(row).toBeLessThan(ROW_LIMIT_BYTES);
  });
});
