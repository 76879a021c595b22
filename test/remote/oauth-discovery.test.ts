/**
 * Hostile metadata at discovery (src/remote/oauth.ts `discover`): a protected resource or an
 * authorization server that names something it should not. The network is a table of answers.
 */
import { describe, expect, it } from "vitest";
import { WeftError } from "../../src/errors.js";
import { discover } from "../../src/remote/oauth.js";

/** A fetch answering JSON from `table` by exact URL (404 otherwise), recording what was asked. */
function table(answers: Record<string, unknown>) {
  const asked: string[] = [];
  const fetchFn = async (input: string | URL) => {
    const url = String(input);
    asked.push(url);
    return url in answers ? Response.json(answers[url]) : new Response("not found", { status: 404 });
  };
  return { fetchFn, asked };
}

const asMetadata = (issuer: string, base = issuer) => ({
  issuer,
  authorization_endpoint: `${base}/authorize`,
  token_endpoint: `${base}/token`,
  response_types_supported: ["code"],
  code_challenge_methods_supported: ["S256"],
});

async function refusal(p: Promise<unknown>): Promise<WeftError> {
  const e = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(WeftError);
  return e as WeftError;
}

describe("OAuth discovery against hostile metadata", () => {
  it("refuses metadata whose issuer is another tenant of the same origin (RFC 8414 3.3: identical issuer)", async () => {
    const { fetchFn } = table({
      "https://mcp.example/.well-known/oauth-protected-resource/mcp": { resource: "https://mcp.example/mcp", authorization_servers: ["https://as.example/tenant-a"] },
      "https://as.example/.well-known/oauth-authorization-server/tenant-a": asMetadata("https://as.example/tenant-b"),
    });
    const e = await refusal(discover("s", new URL("https://mcp.example/mcp"), { type: "oauth" }, fetchFn));
    expect(e.code).toBe("mcp_refused");
    expect(e.message).toContain("issuer");
  });

  it("still takes an issuer equal to the authorization server but for a trailing slash", async () => {
    const { fetchFn } = table({
      "https://mcp.example/.well-known/oauth-protected-resource/mcp": { resource: "https://mcp.example/mcp", authorization_servers: ["https://as.example/"] },
      "https://as.example/.well-known/oauth-authorization-server": asMetadata("https://as.example"),
    });
    const plan = await discover("s", new URL("https://mcp.example/mcp"), { type: "oauth" }, fetchFn);
    expect(plan.metadata.token_endpoint).toBe("https://as.example/token");
  });

  it("refuses a loopback authorization server or endpoint named by a server that is not on loopback (no SSRF into the host)", async () => {
    const viaPrm = table({
      "https://mcp.example/.well-known/oauth-protected-resource/mcp": { resource: "https://mcp.example/mcp", authorization_servers: ["http://127.0.0.1:8787"] },
      "http://127.0.0.1:8787/.well-known/oauth-authorization-server": asMetadata("http://127.0.0.1:8787"),
    });
    expect((await refusal(discover("s", new URL("https://mcp.example/mcp"), { type: "oauth" }, viaPrm.fetchFn))).code).toBe("mcp_refused");
    // Nothing was asked of the loopback host.
    expect(viaPrm.asked.filter((u) => u.startsWith("http://127."))).toEqual([]);

    const viaEndpoint = table({
      "https://mcp.example/.well-known/oauth-protected-resource/mcp": { resource: "https://mcp.example/mcp", authorization_servers: ["https://as.example"] },
      "https://as.example/.well-known/oauth-authorization-server": { ...asMetadata("https://as.example"), token_endpoint: "http://localhost:9000/internal" },
    });
    expect((await refusal(discover("s", new URL("https://mcp.example/mcp"), { type: "oauth" }, viaEndpoint.fetchFn))).code).toBe("mcp_refused");
  });
});
