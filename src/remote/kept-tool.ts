/**
 * What weft keeps of a tool a remote MCP server lists: the fields it reads, copied, cleaned of the
 * connection's secrets, a name too long to be a tool's cut.
 * @module
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Redactor } from "../secrets/redact.js";

/**
 * One tool as weft keeps it from the server's list: only the fields it reads (the rest of what
 * the server said is dropped as each page is read).
 */
export interface RemoteToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /**
   * The JSON Schema the server says its results conform to (MCP 2025-06-18, Tools > Output
   * Schema), kept only when it is a JSON object: a call's success is checked against it
   * (src/remote/remote-tools.ts).
   */
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean };
}

/** Longest tool name kept as the server gave it; a longer one (never a valid tool name) is cut. */
const MAX_KEPT_NAME_CHARS = 256;

/**
 * The fields weft reads of a listed tool ({@link RemoteToolInfo}), copied (nothing else of the
 * server's answer stays referenced) and cleaned by `redactor` of what the connection sent
 * (`Redactor.content`: numbers too).
 */
export function keptOf(tool: Tool, redactor: Redactor): RemoteToolInfo {
  const hints = tool.annotations;
  const annotations = {
    ...(typeof hints?.readOnlyHint === "boolean" ? { readOnlyHint: hints.readOnlyHint } : {}),
    ...(typeof hints?.idempotentHint === "boolean" ? { idempotentHint: hints.idempotentHint } : {}),
    ...(typeof hints?.destructiveHint === "boolean" ? { destructiveHint: hints.destructiveHint } : {}),
  };
  // The server's own data: a header it says back as a number (a schema's default) is looked for too.
  const kept: RemoteToolInfo = redactor.content({
    name: tool.name,
    ...(typeof tool.description === "string" ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(isJsonObject(tool.outputSchema) ? { outputSchema: tool.outputSchema } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  });
  // Cut once redacted: a cut through a secret leaves a part of it the redactor no longer knows.
  // A name this long is refused anyway (src/remote/remote-tools.ts); it is kept for the refusal.
  return kept.name.length > MAX_KEPT_NAME_CHARS ? { ...kept, name: `${kept.name.slice(0, MAX_KEPT_NAME_CHARS)}...` } : kept;
}

/** Whether `value` is a JSON object (not an array, not null). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
