/**
 * Hostile metadata at discovery (src/remote/oauth.ts `discover`): a protected resource or an
 * authorization server that names something it should not. The network is a table of answers.
 */
import { describe, expect, it } from "vitest";
import { WeftError } from "../../src/errors.js";
import { checkMcpServerDefinition } from "../../src/remote/define.js";
import { clientFor, discover, exchangeCode } from "../../src/remote/oauth.js";

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
  it("refuses protected-resource metadata naming another resource of the same origin (RFC 9728 3.3: identical resource)", async () => {
    const { fetchFn } = table({
      "https://mcp.example/.well-known/oauth-protected-resource/tenant/mcp": { resource: "https://mcp.example/mcp", authorization_servers: ["https://as.example"] },
      "https://as.example/.well-known/oauth-authorization-server": asMetadata("https://as.example"),
    });
    const e = await refusal(discover("s", new URL("https://mcp.example/tenant/mcp"), { type: "oauth" }, fetchFn));
    expect(e.code).toBe("mcp_refused");
    expect(e.message).toContain("names the resource https://mcp.example/mcp, not its own URL https://mcp.example/tenant/mcp");
    // The same resource but for a trailing slash is the server's own.
    const own = table({
      "https://mcp.example/.well-known/oauth-protected-resource/tenant/mcp": { resource: "https://mcp.example/tenant/mcp/", authorization_servers: ["https://as.example"] },
      "https://as.example/.well-known/oauth-authorization-server": asMetadata("https://as.example"),
    });
    expect((await discover("s", new URL("https://mcp.example/tenant/mcp"), { type: "oauth" }, own.fetchFn)).resource).toBe("https://mcp.example/tenant/mcp/");
  });

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

  // A resource server that turns hostile (or whose metadata is altered) names its own
  // authorization server: a pre-registered client's secret must not go there with the code.
  it("never sends a pre-registered client's secret to an authorization server the resource names on its own", async () => {
    const sent: string[] = [];
    const base = table({
      "https://crm.example/.well-known/oauth-protected-resource/mcp": { resource: "https://crm.example/mcp", authorization_servers: ["https://attacker.example"] },
      "https://attacker.example/.well-known/oauth-authorization-server": asMetadata("https://attacker.example"),
    });
    const fetchFn = async (input: string | URL, init?: RequestInit) => {
      if (String(input) === "https://attacker.example/token") {
        sent.push(String(init?.body ?? ""), JSON.stringify([...new Headers(init?.headers).entries()]));
        return Response.json({ access_token: "a", token_type: "Bearer" });
      }
      return base.fetchFn(input);
    };
    const auth = { type: "oauth" as const, clientId: "weft-prod", clientSecretEnv: "CRM_CLIENT_SECRET", authorizationServer: "https://login.crm.example" };
    const e = await refusal(
      discover("crm", new URL("https://crm.example/mcp"), auth, fetchFn).then(async (plan) => {
        const client = await clientFor("crm", plan, auth, "https://weft.test/mcp-oauth/callback", "the-worker-secret", fetchFn);
        await exchangeCode("crm", plan, client, "code", "verifier", "https://weft.test/mcp-oauth/callback", fetchFn);
      }),
    );
    expect(e.code).toBe("mcp_refused");
    // client_secret_basic: in the Authorization header, base64 of "weft-prod:the-worker-secret".
    expect(sent.join("\n")).not.toContain("the-worker-secret");
    expect(sent.join("\n")).not.toContain(btoa("weft-prod:the-worker-secret"));
  });

  it("asks a client secret's declaration for the authorization server that client is registered at", () => {
    const declare = (auth: unknown) => () => checkMcpServerDefinition("crm", { kind: "mcp", url: "https://crm.example/mcp", auth });
    expect(declare({ type: "oauth", clientId: "weft-prod", clientSecretEnv: "CRM_SECRET" })).toThrow(/authorizationServer/);
    expect(declare({ type: "oauth", clientId: "weft-prod", clientSecretEnv: "CRM_SECRET", authorizationServer: "http://login.crm.example" })).toThrow(/authorizationServer/);
    expect(declare({ type: "oauth", clientId: "weft-prod", clientSecretEnv: "CRM_SECRET", authorizationServer: "https://login.crm.example" })).not.toThrow();
  });
});
