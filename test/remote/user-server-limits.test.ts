/**
 * What `POST /mcp-servers` keeps is bounded: at most 256 tool names of at most 128 characters in
 * `tools`, `effects` and `needsApproval` (400 `invalid_request` naming the path), and at most
 * 64 KiB of definition as stored (413 `payload_too_large`, path `definition`); nothing of a
 * refused definition is kept. Users: `lim-*`.
 */
import { describe, expect, it } from "vitest";
import { as } from "./user-flow.js";

const url = "https://tools.mcp.test/mcp";

describe("the size of a server a user adds", () => {
  it("refuses a tools list too long, a name too long, or a definition too large to keep, and keeps nothing", async () => {
    const u = `lim-${crypto.randomUUID().slice(0, 6)}`;
    const huge = await as(u, "POST", "/mcp-servers", { name: "big", url, tools: Array.from({ length: 300_000 }, (_, i) => `tool_number_${i}`) });
    expect([huge.status, huge.body.error.code, huge.body.error.details.path]).toEqual([400, "invalid_request", ["tools"]]);
    const many = await as(u, "POST", "/mcp-servers", { name: "big", url, effects: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`t${i}`, "read"])) });
    expect([many.status, many.body.error.details.path]).toEqual([400, ["effects"]]);
    const long = await as(u, "POST", "/mcp-servers", { name: "big", url, tools: ["ok", "x".repeat(129)] });
    expect([long.status, long.body.error.details.path]).toEqual([400, ["tools", 1]]);
    const scopes = Array.from({ length: 5000 }, (_, i) => `scope:number:${i}`);
    const large = await as(u, "POST", "/mcp-servers", { name: "big", url, auth: { type: "oauth", scopes } });
    expect([large.status, large.body.error.code, large.body.error.details.path]).toEqual([413, "payload_too_large", ["definition"]]);
    expect((await as(u, "GET", "/mcp-servers")).body.servers).toEqual([]);
    // At the limits, kept.
    const tools = Array.from({ length: 256 }, (_, i) => `${String(i).padStart(3, "0")}${"t".repeat(125)}`);
    expect((await as(u, "POST", "/mcp-servers", { name: "big", url, tools })).status).toBe(200);
    expect((await as(u, "DELETE", "/mcp-servers/big")).body).toEqual({ deleted: true });
  });
});
