/**
 * Hostile metadata at discovery (src/remote/oauth.ts `discover`): a protected resource or an
 * authorization server that names something it should not. The network is a table of answers.
 */
import { describe, expect, it } from "vitest";
import { WeftError } from "../../src/errors.js";
import { checkMcpServerDefinition } from "../../src/remote/define.js";
import { clientFor, discover, exchangeCode, refreshTokens } from "../../src/remote/oauth.js";

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

  describe("an authorization server that echoes what it was sent", () => {
    const secret = "the worker's+secret/=";
    const auth = { type: "oauth" as const, clientId: "weft-prod", clientSecretEnv: "CRM_CLIENT_SECRET", authorizationServer: "https://login.crm.example" };
    const network = table({
      "https://crm.example/.well-known/oauth-protected-resource/mcp": { resource: "https://crm.example/mcp", authorization_servers: ["https://login.crm.example"] },
      "https://login.crm.example/.well-known/oauth-authorization-server": asMetadata("https://login.crm.example"),
    });
    /**
     * The token endpoint answers `status` with an error description quoting the secret after
     * `pad` characters, then the request: its Authorization header and its body.
     */
    const echoing = (status: number, error: string, pad: number) => async (input: string | URL, init?: RequestInit) => {
      if (String(input) !== "https://login.crm.example/token") return network.fetchFn(input);
      const sent = `${new Headers(init?.headers).get("authorization") ?? ""} ${String(init?.body ?? "")}`;
      return Response.json({ error, error_description: `${"x".repeat(pad)}${secret} you sent ${sent}` }, { status });
    };
    // Its start too: a message cut to length must not end in part of it.
    const forms = [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), btoa(`weft-prod:${secret}`), secret.slice(0, 8)];

    for (const [status, error] of [
      [400, "invalid_grant"],
      [503, "temporarily_unavailable"],
      [500, "server_error"],
    ] as const) {
      it(`shows none of a refused code's error text, which quotes the client secret in each form it was sent, but its code (${error})`, async () => {
        for (const pad of [0, 290]) {
          const fetchFn = echoing(status, error, pad);
          const plan = await discover("crm", new URL("https://crm.example/mcp"), auth, fetchFn);
          const client = await clientFor("crm", plan, auth, "https://weft.test/mcp-oauth/callback", secret, fetchFn);
          const e = await refusal(exchangeCode("crm", plan, client, "code", "verifier", "https://weft.test/mcp-oauth/callback", fetchFn));
          const told = `${e.message} ${JSON.stringify(e.details)}`;
          for (const form of forms) expect(told).not.toContain(form);
          expect(told).toContain("its text is not shown");
          if (status === 400) expect(e.details).toMatchObject({ path: ["code"], oauthError: "invalid_grant" });
        }
      });
    }

    // A body that is no OAuth error reaches the SDK's message raw ("Raw body: ..."), where the
    // secret may be written with JSON escapes or another encoder's percent form, or cut short in
    // a JSON parser's excerpt: none of these is a form the cleaner knows.
    for (const [what, body] of [
      ["JSON-escaped (PHP's \\/)", JSON.stringify({ message: `bad client: ${secret}` }).replace(/\//g, "\\/")],
      ["JSON-escaped (\\u)", JSON.stringify({ message: `bad client: ${secret}` }).replace(/'/g, "\\u0027")],
      ["percent-encoded by another encoder (%27 and a bare /)", `bad client_secret=${encodeURIComponent(secret).replace(/'/g, "%27").replace(/%2F/g, "/")}`],
      ["cut short in a parser's excerpt", `${secret} is not a client secret of this server`],
    ] as const) {
      it(`never shows the client secret, or its start, from a token endpoint's answer that is no OAuth error: ${what}`, async () => {
        const fetchFn = async (input: string | URL) => (String(input) === "https://login.crm.example/token" ? new Response(body, { status: 401 }) : network.fetchFn(input));
        const plan = await discover("crm", new URL("https://crm.example/mcp"), auth, fetchFn);
        const client = await clientFor("crm", plan, auth, "https://weft.test/mcp-oauth/callback", secret, fetchFn);
        const e = await refusal(exchangeCode("crm", plan, client, "code", "verifier", "https://weft.test/mcp-oauth/callback", fetchFn));
        const told = `${e.message} ${JSON.stringify(e.details)}`;
        expect(told).not.toMatch(/worker|secret\\?\//);
        expect(told).toContain("401");
      });
    }

    it("shows none of a refused refresh's error text, which quotes the client secret", async () => {
      const fetchFn = echoing(400, "invalid_grant", 0);
      const plan = await discover("crm", new URL("https://crm.example/mcp"), auth, fetchFn);
      const client = await clientFor("crm", plan, auth, "https://weft.test/mcp-oauth/callback", secret, fetchFn);
      const e = await refusal(refreshTokens("crm", plan, client, "the-refresh-token", fetchFn));
      const told = `${e.message} ${JSON.stringify(e.details)}`;
      for (const form of forms) expect(told).not.toContain(form);
      expect(told).toContain("its text is not shown");
    });
  });
});
