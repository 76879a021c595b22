/**
 * How a thread gets a user's OAuth token for a remote MCP server: it asks the owner's account
 * (src/account/mcp-connections.ts), which keeps, refreshes and issues tokens, or answers the URL
 * the user must open first; that answer becomes `mcp_auth_required` with `authorizationUrl`.
 * @module
 */
import { accountOf } from "../account/api.js";
import { WeftError } from "../errors.js";
import type { McpOAuthAuth, McpServerDefinition } from "./define.js";

/** Prefix of the park reason of a call waiting for a user's authorization (resumed once it is given). */
export const AUTHORIZATION_PARK = "mcp_auth_required:";

/** What a thread's remote servers ask of the owner's account. */
export interface McpAuthorizer {
  /**
   * The user's access token for server `server` as `def` defines it, and when it expires (epoch ms; `rejected`: the one the server just refused).
   * @throws WeftError `mcp_auth_required` with `details.authorizationUrl` when the user must authorize first.
   */
  token(server: string, def: McpServerDefinition, rejected?: string): Promise<{ token: string; expiresAt: number | null }>;
  /** Whether the user holds tokens for server `server` as `def` defines it (its name, URL and `auth`). */
  connected(server: string, def: McpServerDefinition): Promise<boolean>;
}

/**
 * The authorizer of thread `threadId` owned by `userId`, through the `ACCOUNT` binding. With
 * `start` false (a listing outside any thread, `threadId` empty), a user without a token gets
 * `mcp_auth_required` and no authorization is started. `userAdded`: the servers it serves are
 * ones the user added (`POST /mcp-servers`), whose authorization servers must send `iss` (RFC 9207).
 */
export function accountAuthorizer(ns: DurableObjectNamespace | undefined, userId: string | undefined, threadId: string, start = true, userAdded = false): McpAuthorizer {
  const account = () => {
    if (!ns || !userId) throw new WeftError("mcp_auth_required", "OAuth connections need the ACCOUNT Durable Object binding and a thread owned by a user");
    return accountOf(ns, userId);
  };
  return {
    async token(server, def, rejected) {
      const answer = await account().mcpToken({ server, url: def.url, auth: def.auth as McpOAuthAuth, userId: userId!, threadId, ...(rejected !== undefined ? { rejected } : {}), ...(start ? {} : { start: false as const }), ...(userAdded ? { userAdded: true as const } : {}) });
      if (!answer.ok) throw new WeftError(answer.error.code, answer.error.message, answer.error.details);
      if ("token" in answer.value) return answer.value;
      const url = answer.value.authorizationUrl;
      throw new WeftError("mcp_auth_required", `mcp server "${server}" needs your authorization: open ${url}`, { mcpServer: server, authorizationUrl: url });
    },
    async connected(server, def) {
      return ns && userId ? account().mcpConnected(server, def.url, def.auth as McpOAuthAuth) : false;
    },
  };
}
