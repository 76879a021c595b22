/**
 * weft's MCP server honours the effect-key extension it announces: a `tools/call` carrying
 * `_meta["weft/effectKey"]` runs at most once per key, and a repeat answers the recorded result.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { EFFECT_KEY_META } from "../../src/mcp/server.js";
import { runDurableObjectAlarm } from "cloudflare:test";
import { SCRATCH_TTL_MS } from "../../src/thread/guard.js";
import { inThread, ledgerOf, rawStub, request } from "../helpers.js";

async function client(): Promise<Client> {
  const c = new Client({ name: "weft-test", version: "1.0.0" });
  const fetchAs = (url: string | URL, init?: RequestInit) => request(new URL(url).pathname, init, "alice");
  await c.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: fetchAs }));
  return c;
}

const textOf = (r: Awaited<ReturnType<Client["callTool"]>>) => (r.content as Array<{ text: string }>)[0]!.text;

describe("the effect-key extension", () => {
  it("is announced in the server's capabilities", async () => {
    const c = await client();
    // As long as a call without a session keeps its answer: its scratch thread's life.
    expect(c.getServerCapabilities()?.experimental?.[EFFECT_KEY_META]).toEqual({ version: 1, windowMs: SCRATCH_TTL_MS });
    expect(SCRATCH_TTL_MS).toBe(600_000);
    await c.close();
  });

  it("runs a write once per key: a repeat (even on a new connection) answers the recorded result", async () => {
    const key = `caller:${crypto.randomUUID()}`;
    const first = await (await client()).callTool({ name: "effect_write", arguments: { label: "x" }, _meta: { [EFFECT_KEY_META]: key } });
    const again = await (await client()).callTool({ name: "effect_write", arguments: { label: "x" }, _meta: { [EFFECT_KEY_META]: key } });
    expect(first.isError).toBeFalsy();
    expect(textOf(again)).toBe(textOf(first));
    const ran = JSON.parse(textOf(first)) as { effectKey: string; runs: number };
    expect(ran.runs).toBe(1);
    expect((await ledgerOf(ran.effectKey)).runs).toBe(1);
  });

  it("past the window (its scratch thread gone) a repeat runs again, under the same effect key, for a provider that deduplicates by it", async () => {
    const key = `caller:${crypto.randomUUID()}`;
    const send = async () => JSON.parse(textOf(await (await client()).callTool({ name: "effect_write", arguments: { label: "x" }, _meta: { [EFFECT_KEY_META]: key } }))) as { effectKey: string; runs: number };
    const first = await send();
    const threadId = first.effectKey.split(/[.:]/)[0]!;
    await inThread(threadId, (t) => {
      t.world.meta.createdAt -= SCRATCH_TTL_MS + 1;
      t.store.meta.write(t.world.meta);
    });
    expect(await runDurableObjectAlarm(rawStub(threadId))).toBe(true);
    expect(await inThread(threadId, (t) => t.world === null || t.world === undefined)).toBe(true);
    const again = await send();
    expect(again.effectKey).toBe(first.effectKey);
    expect((await ledgerOf(first.effectKey)).runs).toBe(2);
  });

  it("answers a repeat that arrives while the first still runs with JSON-RPC -32603 (outcome not known yet), and the recorded result once it has one", async () => {
    const key = `caller:${crypto.randomUUID()}`;
    const call = async () => (await client()).callTool({ name: "slow_write", arguments: { ms: 3000 }, _meta: { [EFFECT_KEY_META]: key } });
    // Sent together: whichever the server takes second finds the first running.
    const both = await Promise.allSettled([call(), call()]);
    const answered = both.flatMap((b) => (b.status === "fulfilled" ? [b.value] : []));
    const refused = both.flatMap((b) => (b.status === "rejected" ? [b.reason as { code?: number }] : []));
    expect(refused.map((r) => r.code)).toEqual([-32603]);
    expect(answered[0]!.isError).toBeFalsy();
    expect(textOf(await call())).toBe(textOf(answered[0]!));
  });

  it("without a key, each call runs", async () => {
    const c = await client();
    const a = JSON.parse(textOf(await c.callTool({ name: "effect_write", arguments: {} }))) as { effectKey: string };
    const b = JSON.parse(textOf(await c.callTool({ name: "effect_write", arguments: {} }))) as { effectKey: string };
    expect(a.effectKey).not.toBe(b.effectKey);
    await c.close();
  });

  it("refuses a key that is not 1 to 255 visible ASCII characters", async () => {
    const c = await client();
    const answer = await c.callTool({ name: "effect_write", arguments: {}, _meta: { [EFFECT_KEY_META]: "has space" } });
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/^invalid_request: _meta\.weft\/effectKey/);
    await c.close();
  });
});
