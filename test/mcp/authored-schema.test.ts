/**
 * weft's MCP server lists a tool's input schema as its author wrote it, `$schema` included (the
 * model-facing listing drops a 2020-12 `$schema`, which providers do not need).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, it } from "vitest";
import { AUTHORED } from "../fixtures/tools/schema_declared.js";
import { request } from "../helpers.js";

it("tools/list keeps a JSON Schema input as authored, $schema included", async () => {
  const client = new Client({ name: "weft-test", version: "1.0.0" });
  const fetchAs = (url: string | URL, init?: RequestInit) => request(new URL(url).pathname, init, "alice");
  await client.connect(new StreamableHTTPClientTransport(new URL("http://weft.test/mcp"), { fetch: fetchAs }));
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === "schema_declared")!.inputSchema).toEqual(AUTHORED);
  await client.close();
});
