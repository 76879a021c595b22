/**
 * Declaring remote MCP servers in `agents/mcp/<name>.ts`: the build finds them, checks each
 * (`file: rule` on a bad one), lets agents list `<server>.<tool>` or `<server>`, and refuses a
 * tool outside a server's allow-list.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CASES, build } from "../scripts/build-registry.node.js";


let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "weft-mcp-declare-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("agents/mcp/ at build", () => {
  it("a good server is registered as mcpServers and agents may list its tools and the whole server", async () => {
    const out = path.join(tmp, "good.ts");
    const run = await build("--agents", `${CASES}/base`, "--agents", `${CASES}/mcp-good`, "--out", out);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("1 MCP server");
    const text = await readFile(out, "utf8");
    expect(text).toContain(`import mcp_docs from "`);
    expect(text).toMatch(/mcpServers: \{\n {4}docs: mcp_docs,\n {2}\},/);
  });

  it("a bad server file and a tool outside a server's allow-list are each a file: rule line", async () => {
    const out = path.join(tmp, "bad.ts");
    const run = await build("--agents", `${CASES}/base`, "--agents", `${CASES}/mcp-bad`, "--out", out);
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      `${CASES}/mcp-bad/agents/wrong_tool.ts: agent "wrong_tool": tools lists "wiki.edit", which is not a tool in ${CASES}/base/tools/ or ${CASES}/mcp-bad/tools/, a prompt, or an agent exposed as a tool`,
      `${CASES}/mcp-bad/mcp/ftp_server.ts: mcp server "ftp_server": url must be an absolute http(s) URL`,
      "registry: 2 problems; nothing written",
    ]);
  });
});

describe("a server's url", () => {
  it("is https://, or http:// only to a loopback host: anywhere else its headers and token would cross a network in clear", async () => {
    const { checkMcpServerDefinition, defineMcpServer } = await import("../../src/remote/define.js");
    const check = (url: string) => () => checkMcpServerDefinition("docs", defineMcpServer({ url, headers: { "X-Api-Key": "hdr-key-5f3a9c71e2" } }));
    for (const url of ["http://mcp.example.com/mcp", "http://10.0.0.7:8080/mcp", "http://[fd00::1]/mcp", "http://localhost.example.com/mcp"]) {
      expect(check(url), url).toThrow(/url must be https:\/\/ \(http:\/\/ only to a loopback host such as localhost\)/);
    }
    for (const url of ["https://mcp.example.com/mcp", "http://localhost:8788/mcp", "http://tools.localhost/mcp", "http://127.0.0.1:9000/mcp", "http://[::1]:9000/mcp"]) {
      expect(check(url), url).not.toThrow();
    }
    // The refusal names the host, never a header's value.
    expect(check("http://mcp.example.com/mcp")).toThrow(/mcp\.example\.com/);
    try {
      check("http://mcp.example.com/mcp")();
    } catch (e) {
      expect(JSON.stringify([String(e), (e as { details?: unknown }).details])).not.toContain("hdr-key");
    }
  });
});
