/** A message that is not JSON-RPC is refused naming the field at fault, not the union schema's "input". */
import { describe, expect, it } from "vitest";
import { request } from "../helpers.js";

const rpc = (body: unknown) =>
  request("/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });

describe("POST /mcp malformed messages", () => {
  it("names the field at fault: an id of the wrong type, a method beside a result, params that are not an object", async () => {
    for (const [body, message, path] of [
      [{ jsonrpc: "2.0", id: null, method: "ping" }, "id: expected a string or an integer (a JSON-RPC id)", ["id"]],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, "id: expected a string or an integer (a JSON-RPC id)", ["id"]],
      [[{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: { a: 1 }, method: "ping" }], "[1].id: expected a string or an integer (a JSON-RPC id)", [1, "id"]],
      [{ jsonrpc: "2.0", id: 1, result: {}, method: "ping" }, "method: a message is a request or an answer, so it holds a method or a result or error, not both", ["method"]],
      [{ jsonrpc: "2.0", method: "notifications/x", params: "s" }, "params: expected an object (MCP's params are named)", ["params"]],
      [{ jsonrpc: "2.0", id: 1, method: "ping", params: [] }, "params: expected an object (MCP's params are named)", ["params"]],
    ] as const) {
      const res = await rpc(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toEqual({ code: "invalid_request", message, details: { path, jsonRpcCode: -32600 } });
    }
  });
});
