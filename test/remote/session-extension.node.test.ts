/**
 * What reaches a remote MCP server in one session, whatever the session before it announced:
 * - a write made idempotent because the server announced weft's effect-key extension at its
 *   listing is never sent without its key (a later session of a server that no longer announces it
 *   would take it keyless while weft still retried it: the write run at each try); it is not sent
 *   at all, and the tools are listed again;
 * - a declared header value said back inside an image or audio part is cleaned from its bytes as
 *   from the text (the thread's own redactor holds neither headers nor OAuth tokens).
 * Review 23a found both.
 */
import { type Server as HttpServer, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveStateless } from "../../scripts/lib/mcp-http.mjs";
import { RemoteConnection } from "../../src/remote/connection.js";
import { defineMcpServer } from "../../src/remote/define.js";
import { remoteToolDefinition, toolResultOf } from "../../src/remote/remote-tools.js";

const KEY = "hdr-key-5f3a9c71e2";
let http: HttpServer;
let url: string;
let announce = true;
const received: unknown[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    const experimental = announce ? { experimental: { "weft/effectKey": { version: 1, windowMs: 600_000 } } } : {};
    const server = new Server({ name: "orders", version: "1" }, { capabilities: { tools: {}, ...experimental } });
    const seen = String(req.headers["x-api-key"] ?? "");
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "create_order", inputSchema: { type: "object" } }, { name: "snapshot", inputSchema: { type: "object" } }] }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      received.push(request.params._meta?.["weft/effectKey"] ?? null);
      if (request.params.name === "create_order") return { content: [{ type: "text", text: "created" }] };
      // A "screenshot" of the request: the header in the text and in the bytes of a PNG and a WAV.
      return {
        content: [
          { type: "text", text: `you sent ${seen}` },
          { type: "image", mimeType: "image/png", data: Buffer.from(`\x89PNG\r\n\x1a\nX-Api-Key: ${seen}`, "latin1").toString("base64") },
          { type: "audio", mimeType: "audio/wav", data: Buffer.from(`RIFF....WAVE ${seen}`, "latin1").toString("base64") },
        ],
      };
    });
    void serveStateless(server, req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise((r) => http.close(r)));

const call = (id: string) => ({ signal: new AbortController().signal, effectKey: `thread.0a1b2c3d:${id}` }) as never;

describe("a remote server's sessions", () => {
  it("a write made idempotent by the effect key is not sent in a session that does not announce it, and the tools are listed again", async () => {
    announce = true;
    received.length = 0;
    const def = defineMcpServer({ url });
    const connection = new RemoteConnection("orders", def);
    let relisted = 0;
    connection.onListChanged = () => void relisted++;
    const tool = (await connection.listTools()).find((t) => t.name === "create_order")!;
    const made = remoteToolDefinition("orders", def, tool, connection);
    expect(made).toMatchObject({ effect: "idempotent", maxAttempts: 10 });
    await made.execute!({} as never, {} as never, call("call_1"));
    expect(received).toEqual(["thread.0a1b2c3d:call_1"]);
    // A later session (the server forgot the old one, a token was renewed) of an instance without the extension.
    announce = false;
    await connection.close();
    await expect(made.execute!({} as never, {} as never, call("call_2"))).rejects.toThrow(/no longer announces weft's effect-key extension.*not sent/);
    await expect(made.execute!({} as never, {} as never, call("call_3"))).rejects.toThrow(/not sent/);
    await connection.close();
    expect(received).toEqual(["thread.0a1b2c3d:call_1"]);
    expect(relisted).toBeGreaterThan(0);
    // Listed again, the tool is what the server now says it is: a write, sent without a key.
    const again = remoteToolDefinition("orders", def, (await connection.listTools()).find((t) => t.name === "create_order")!, connection);
    expect(again.effect).toBe("write");
    await again.execute!({} as never, {} as never, call("call_4"));
    await connection.close();
    expect(received).toEqual(["thread.0a1b2c3d:call_1", null]);
  });

  it("a declared header value said back inside an attachment is cleaned from its bytes as from the text", async () => {
    announce = false;
    const def = defineMcpServer({ url, headers: { "X-Api-Key": KEY } });
    const connection = new RemoteConnection("orders", def, async () => ({ headers: { ...def.headers } }));
    const result = toolResultOf(await connection.callTool("snapshot", {}, new AbortController().signal));
    await connection.close();
    expect(result.status === "success" && result.result).toBe("you sent [redacted]");
    const decoded = (result.attachments ?? []).map((a) => Buffer.from((a as { data: string }).data, "base64").toString("latin1"));
    expect(decoded).toHaveLength(2);
    for (const bytes of decoded) {
      expect(bytes).not.toContain(KEY);
      expect(bytes).toContain("[redacted]");
    }
  });
});
