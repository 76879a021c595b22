/**
 * `<server>__connect`: the tool an OAuth server offers in every state, so a model whose server
 * lists nothing yet (the user never authorized weft there) can ask for the connection. Its call
 * parks with the authorization URL until the user has authorized, then answers that the server is
 * connected; the server is listed again before the next model step.
 * @module
 */
import { CallSuspended } from "../calls/suspend.js";
import { WeftError } from "../errors.js";
import type { ToolResult } from "../protocol.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { AUTHORIZATION_PARK } from "./authorizer.js";

/**
 * The connect tool of `server`: `token` asks the account for the user's token (throwing
 * `mcp_auth_required` with `details.authorizationUrl` until they authorized), `connected` drops
 * the server's list so its tools are listed with the new token.
 */
export function connectTool(server: string, token: () => Promise<unknown>, connected: () => void): AnyToolDefinition {
  return {
    kind: "tool",
    description: `Connects the MCP server ${server} for this user (OAuth): call it when the server's tools are missing. It waits until the user has authorized weft there; the server's tools are offered from the next step.`,
    args: { type: "object", properties: {}, additionalProperties: false },
    effect: "read",
    annotations: { mcpServer: server, mcpTool: null },
    execute: async (): Promise<ToolResult> => {
      try {
        await token();
      } catch (e) {
        const url = e instanceof WeftError && e.code === "mcp_auth_required" ? (e.details as { authorizationUrl?: unknown } | undefined)?.authorizationUrl : undefined;
        if (typeof url === "string") throw new CallSuspended(`${AUTHORIZATION_PARK} mcp server "${server}" needs your authorization: open ${url}`, [server]);
        if (e instanceof WeftError) return { status: "error", error: `${e.code}: ${e.message}` };
        throw e;
      }
      connected();
      return { status: "success", result: `mcp server "${server}" is connected; its tools are offered from the next step` };
    },
  };
}
