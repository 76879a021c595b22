/**
 * A JSON-RPC batch that cancels its own request: the stateless server answers every request of
 * a body in that body, so a `notifications/cancelled` naming one of them must not leave it unanswered.
 */
import { describe, expect, it } from "vitest";
import { request } from "../helpers.js";

const rpc = (body: unknown) =>
  request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });

/** The answer, or "hung" when none came in `ms`. */
const within = <T>(p: Promise<T>, ms: number): Promise<T | "hung"> => Promise.race([p, new Promise<"hung">((r) => setTimeout(() => r("hung"), ms))]);

describe("POST /mcp batch with a cancellation", () => {
  it("refuses a batch whose notification cancels one of its own requests (it hung until the runtime cut it: a 5xx)", async () => {
    const res = await within(rpc([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }]), 5000);
    expect(res).not.toBe("hung");
    const r = res as Response;
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/^\[1\]\.params\.requestId: names a request of this same batch/), details: { path: [1, "params", "requestId"], jsonRpcCode: -32600 } });
  });

  it("refuses a batch whose requests share an id (they got one answer between them)", async () => {
    const res = await within(rpc([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { jsonrpc: "2.0", id: 1, method: "ping" }]), 5000);
    expect(res).not.toBe("hung");
    const r = res as Response;
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error).toMatchObject({ code: "invalid_request", message: expect.stringMatching(/^\[1\]\.id: another request/), details: { path: [1, "id"] } });
  });

  it("still takes a cancellation alone (202), and one naming a request of another body beside its own requests", async () => {
    expect((await rpc({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })).status).toBe(202);
    const res = await rpc([{ jsonrpc: "2.0", id: 2, method: "ping" }, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }]);
    expect(res.status).toBe(200);
    expect([await res.json()].flat()).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
  });
});
