/**
 * What `GET /v1/tools` (src/remote/tool-listing.ts) cleans of each server's answers: the token
 * sent to that server, and only that one. A server a user adds says back whatever its user
 * chooses (`mirror.mcp.test`, scripts/lib/fake-mcp.mjs, says its URL's `say`): were its words
 * cleaned of the tokens sent to every other server too (a declared server's Worker secret among
 * them), a user could guess at that secret through a server of their own and read the answer
 * (`[redacted]` for a right guess). And no token the user's listings sent stays kept in the
 * isolate after its session is gone (a user rotating an 8 MiB account env value held every one).
 */
import { env } from "cloudflare:test";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { type McpServerDefinition, defineMcpServer } from "../../src/remote/define.js";
import { listRemoteTools } from "../../src/remote/tool-listing.js";
import { request } from "../helpers.js";

const SUB = "listing-redaction-user";
const WORKER_TOKEN = "worker-bearer-token-9c1e77";
const OWN_TOKEN = "own-bearer-token-52ab03";

/** Sends JSON as the JWT user {@link SUB} (a subject of this file alone). */
async function asUser(method: string, path: string, body?: unknown): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const secret = new TextEncoder().encode("weft-test-jwt-secret-not-for-production");
  const token = await new SignJWT({ name: SUB, roles: [] }).setProtectedHeader({ alg: "HS256" }).setSubject(SUB).setIssuer("weft-tests").setAudience("weft-test").setIssuedAt(now - 60).setExpirationTime(now + 3600).sign(secret);
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) };
  const res = await request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, null);
  await res.body?.cancel();
  return res.status;
}

const mirror = (say: string, auth?: McpServerDefinition["auth"]) => defineMcpServer({ url: `https://mirror.mcp.test/mcp?say=${encodeURIComponent(say)}`, ...(auth ? { auth } : {}) });

describe("GET /v1/tools cleans each server's words of the token sent to it", () => {
  it("a declared server's Worker token is cleaned from its own words, never from a user's server's", async () => {
    // The Worker's env, with the declared server's token a Worker secret; one object, so the listings are kept per user as in a deployment.
    const workerEnv = { ...(env as unknown as Record<string, unknown>), DECL_MCP_TOKEN: WORKER_TOKEN };
    expect(await asUser("PUT", "/account/env/MIRROR_OWN_TOKEN", { value: OWN_TOKEN })).toBe(200);
    try {
      const listed = await listRemoteTools({
        servers: { decl: mirror("declared", { type: "bearer", env: "DECL_MCP_TOKEN" }) },
        own: {
          // The user's guess at the Worker's secret, and another text of the same shape.
          guess: mirror(WORKER_TOKEN),
          other: mirror("worker-bearer-token-000000"),
          mine: mirror("mine", { type: "bearer", env: "MIRROR_OWN_TOKEN" }),
        },
        taken: () => false,
        env: workerEnv,
        userId: SUB,
      });
      const described = Object.fromEntries(listed.tools.map((t) => [t.name, t.description]));
      expect(listed.problems).toEqual([]);
      // What each server heard is cleaned from what it says.
      expect(described.decl__heard).toBe("you sent Bearer [redacted]");
      expect(described.mine__heard).toBe("you sent Bearer [redacted]");
      // A user's server says back what its user wrote, right guess or not: no oracle on the Worker's secret.
      expect(described.other__said).toBe("worker-bearer-token-000000");
      expect(described.guess__said).toBe(WORKER_TOKEN);
    } finally {
      await asUser("DELETE", "/account/env/MIRROR_OWN_TOKEN");
    }
  });
});
