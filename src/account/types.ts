/**
 * What a user's account answers over the API, as types only: weft/client's declarations reach
 * them without the account's Durable Object code (src/account/api.ts, src/account/mcp-servers.ts).
 * @module
 */
import type { AccountEntry } from "../ports/threads.js";
import type { McpServerDefinition } from "../remote/define.js";

/** A page of `GET /threads`: newest first; `nextCursor` is null on the last page. */
export interface ThreadPage {
  threads: AccountEntry[];
  nextCursor: string | null;
}

/** A server as `GET /mcp-servers` shows it. */
export interface UserMcpServer {
  /** The server's name (`^[a-z][a-z0-9_]{0,31}$`); its tools are offered as `<name>__<tool>`. */
  name: string;
  /** The options as `defineMcpServer` returns them (`kind: "mcp"`). */
  definition: McpServerDefinition;
  /** When it was added or last replaced (epoch ms). */
  createdAt: number;
}
