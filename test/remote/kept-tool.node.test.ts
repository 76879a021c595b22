/**
 * A listed tool's name too long to keep is cut only after the connection's secrets are cleaned
 * from it: cut first, a secret straddling the cut would be left in part, which the redactor
 * (looking for whole values) no longer finds.
 */
import { type Server as HttpServer, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveStateless } from "../../scripts/lib/mcp-http.mjs";
import { RemoteConnection } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";

const KEY = "hdr-key-7b2e91d04c";
let http: HttpServer;
let url: string;

beforeAll(async () => {
  http = createServer((req, res) => {
    const server = new Server({ name: "says-back", version: "1" }, { capabilities: { tools: {} } });
    const seen = String(req.headers["x-api-key"] ?? "");
    // The key it was sent, from the 245th character of a name: 12 of its 18 characters fall before the cut at 256.
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: `${"n".repeat(244)}${seen}${"m".repeat(40)}`, description: `you sent ${seen}`, inputSchema: { type: "object" } }] }));
    void serveStateless(server, req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise((r) => http.close(r)));

describe("a listed tool's overlong name", () => {
  it("is cleaned of a header value straddling the cut before it is cut", async () => {
    const def = defineMcpServer({ url, headers: { "X-Api-Key": KEY } });
    const connection = new RemoteConnection("sayer", def, async () => ({ headers: { ...def.headers } }));
    try {
      const [tool] = await connection.listTools();
      // The server heard the key (and said it back, cleaned).
      expect(tool!.description).toMatch(/^you sent \S/);
      expect(tool!.description).not.toContain(KEY);
      expect(tool!.name.startsWith("n".repeat(244))).toBe(true);
      expect(tool!.name.endsWith("...")).toBe(true);
      expect(tool!.name.length).toBe(256 + 3);
      // No part of the key is left: not the 12 characters before the cut, nor fewer.
      expect(tool!.name).not.toContain(KEY.slice(0, 6));
    } finally {
      await connection.close();
    }
  });
});
