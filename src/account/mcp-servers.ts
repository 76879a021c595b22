/**
 * The MCP servers a user added at run time (`POST /mcp-servers`), kept in the user's account
 * Durable Object: name and definition (checked before it gets here, src/remote/define.ts
 * `checkUserMcpServer`), at most `MAX_USER_MCP_SERVERS`. They hold no secret: a bearer token is
 * named by its account env value, never given literally.
 * @module
 */
import { WeftError } from "../errors.js";
import type { McpServerDefinition } from "../remote/define.js";
import type { UserMcpServer } from "./types.js";

/** Table of the user's servers (created with the account's schema). */
export const MCP_SERVERS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_mcp_servers (name TEXT PRIMARY KEY, definition TEXT NOT NULL, created_at INTEGER NOT NULL);
`;

/** The servers of one account. */
export class UserMcpServers {
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {}

  /** Every server the user added, by name. */
  list(): UserMcpServer[] {
    return this.sql
      .exec<{ name: string; definition: string; created_at: number }>("SELECT name, definition, created_at FROM account_mcp_servers ORDER BY name")
      .toArray()
      .map((r) => ({ name: r.name, definition: JSON.parse(r.definition) as McpServerDefinition, createdAt: r.created_at }));
  }

  /**
   * Adds (or replaces) the server `name`.
   * @throws WeftError `invalid_request` (path `name`) when the user holds `max` other servers already.
   */
  add(name: string, definition: McpServerDefinition, max: number): UserMcpServer {
    const exists = this.sql.exec("SELECT 1 FROM account_mcp_servers WHERE name = ?", name).toArray().length > 0;
    const count = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM account_mcp_servers").one().n;
    if (!exists && count >= max) throw new WeftError("invalid_request", `name: you have added ${count} MCP servers, the most one user may; remove one first (DELETE /mcp-servers/:name)`, { path: ["name"], limit: max });
    const createdAt = this.now();
    this.sql.exec("INSERT OR REPLACE INTO account_mcp_servers (name, definition, created_at) VALUES (?, ?, ?)", name, JSON.stringify(definition), createdAt);
    return { name, definition, createdAt };
  }

  /** The stored definition of `name` as its JSON text (compared as stored: any change shows), or undefined. */
  definitionText(name: string): string | undefined {
    return this.sql.exec<{ definition: string }>("SELECT definition FROM account_mcp_servers WHERE name = ?", name).toArray()[0]?.definition;
  }

  /** Removes the server `name`. */
  remove(name: string): { deleted: boolean } {
    const had = this.sql.exec("SELECT 1 FROM account_mcp_servers WHERE name = ?", name).toArray().length > 0;
    this.sql.exec("DELETE FROM account_mcp_servers WHERE name = ?", name);
    return { deleted: had };
  }
}
