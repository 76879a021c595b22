/** The DNS-rebinding rule of `POST /mcp` (src/http/origins.ts), case by case. */
import { describe, expect, it } from "vitest";
import { mcpRefusal } from "../../src/http/origins.js";

const at = (u: string) => new URL(u);

describe("mcpRefusal", () => {
  it("serves clients outside a browser (no Origin) on any host while WEFT_MCP_HOSTS is unset", () => {
    expect(mcpRefusal(at("https://weft.example.com/mcp"), null, {})).toBeNull();
  });

  it("refuses a rebound page: same-origin by name, but a host weft does not serve by name", () => {
    expect(mcpRefusal(at("http://evil.example:8787/mcp"), "http://evil.example:8787", {})).toMatch(/^Origin http:\/\/evil\.example:8787 is not served/);
  });

  it("serves a local page of its own, and an origin listed for CORS", () => {
    expect(mcpRefusal(at("http://localhost:8787/mcp"), "http://localhost:8787", {})).toBeNull();
    expect(mcpRefusal(at("https://weft.example.com/mcp"), "https://app.example.com", { WEFT_CORS_ORIGINS: "https://app.example.com" })).toBeNull();
    expect(mcpRefusal(at("https://weft.example.com/mcp"), "https://other.example.com", { WEFT_CORS_ORIGINS: "https://app.example.com" })).not.toBeNull();
  });

  it("with WEFT_MCP_HOSTS set, refuses any other Host and serves same-origin pages of the listed ones", () => {
    const env = { WEFT_MCP_HOSTS: "weft.example.com, localhost:8787" };
    expect(mcpRefusal(at("https://weft.example.com/mcp"), null, env)).toBeNull();
    expect(mcpRefusal(at("https://weft.example.com/mcp"), "https://weft.example.com", env)).toBeNull();
    expect(mcpRefusal(at("http://localhost:8787/mcp"), null, env)).toBeNull();
    expect(mcpRefusal(at("http://evil.example/mcp"), null, env)).toBe("Host evil.example is not served at /mcp (WEFT_MCP_HOSTS)");
    expect(mcpRefusal(at("http://localhost:9999/mcp"), null, env)).not.toBeNull();
  });
});
