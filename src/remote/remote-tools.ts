/**
 * A remote MCP tool as a weft tool definition, so its calls take the one pipeline like any
 * local tool: its `inputSchema` is the definition's JSON Schema `args` (validated before anything
 * is sent), its effect comes from the author's override or the server's annotations, and its
 * `execute` sends `tools/call` and reads the answer as a `ToolResult`. A tool that declares an
 * `outputSchema` gets it as the definition's, so the pipeline's output check (stage 9,
 * `invalid_tool_output`) is the MCP client's validation the specification asks for.
 * @module
 */
import { type CallToolResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { WeftError } from "../errors.js";
import type { ToolAttachment, ToolResult } from "../protocol.js";
import { TransientError } from "../calls/retry.js";
import { CallSuspended } from "../calls/suspend.js";
import { AUTHORIZATION_PARK } from "./authorizer.js";
import { TOOL_NAME_PATTERN } from "../tools/define.js";
import type { AnyToolDefinition, SchemaInput, ToolCallContext } from "../tools/types.js";
import { type RemoteConnection, RemoteToolError } from "./connection.js";
import type { RemoteToolInfo } from "./kept-tool.js";
import type { McpServerDefinition, RemoteEffect } from "./define.js";

/** Dedup window weft assumes for a remote tool judged idempotent, in milliseconds. */
export const DEFAULT_REMOTE_DEDUP_MS = 60_000;

/**
 * Attempts of a call to a server with weft's effect-key extension: it is asked again with the
 * same key while it answers that the outcome is not known yet (-32603: its first run still goes
 * on, or was cut by a restart) or cannot be reached. About 10 s of backoff (src/calls/retry.ts).
 */
export const EFFECT_KEY_MAX_ATTEMPTS = 10;

/**
 * The name the model sees for the server's tool `tool`: `<server>__<tool>`, lower-cased, any
 * character outside `[a-z0-9_]` made `_` (provider APIs refuse dots). Null when it cannot be a
 * tool name (too long).
 */
export function remoteToolName(server: string, tool: string): string | null {
  const name = `${server}__${tool.toLowerCase().replace(/[^a-z0-9_]/g, "_")}`;
  return TOOL_NAME_PATTERN.test(name) ? name : null;
}

/**
 * The server a tool name made by {@link remoteToolName} names (the part before its first `__`), or
 * undefined for a name without one; with `servers`, only a server among them.
 */
export function serverOfToolName(name: string, servers?: Record<string, unknown>): string | undefined {
  const cut = name.indexOf("__");
  if (cut <= 0) return undefined;
  const server = name.slice(0, cut);
  return !servers || Object.hasOwn(servers, server) ? server : undefined;
}

/**
 * A remote tool's effect: the author's `effects` override wins; otherwise `readOnlyHint: true`
 * is read, `idempotentHint: true` beside an explicit `destructiveHint` (true or false) is
 * idempotent, anything else write. A bare `idempotentHint` is a write: MCP defaults an unsaid
 * `destructiveHint` to true and the server said nothing about whether a repeat is safe
 * (the Agent SDK tools reference, "Retry a transient read or idempotent call"). The hints are the
 * server's word, so only the cautious reading of a missing hint is taken.
 */
export function remoteEffect(def: McpServerDefinition, tool: RemoteToolInfo): RemoteEffect {
  const override = def.effects && Object.hasOwn(def.effects, tool.name) ? def.effects[tool.name] : undefined;
  if (override) return override;
  const hints = tool.annotations;
  if (hints?.readOnlyHint === true) return "read";
  if (hints?.idempotentHint === true && typeof hints.destructiveHint === "boolean") return "idempotent";
  return "write";
}

/**
 * The definition of one remote tool, calling through `connection`. A server that announced weft's
 * effect-key extension (`connection.effectKeyWindowMs`) gets each call's effect key and answers a
 * repeat with its recorded result, so a write to it is idempotent within that window: retried
 * after a transient failure and re-sent after a crash with the same key, never run twice.
 * The tool's `outputSchema`, when kept, is the definition's: a success is checked against it
 * (its structured content, see {@link toolResultOf}) and one that fails is `invalid_tool_output`.
 */
export function remoteToolDefinition(server: string, def: McpServerDefinition, tool: RemoteToolInfo, connection: RemoteConnection): AnyToolDefinition {
  const window = connection.effectKeyWindowMs;
  const judged = remoteEffect(def, tool);
  // Only the name is held by `execute`: the definition keeps no more of the listing than its fields below.
  const remote = tool.name;
  const checked = tool.outputSchema !== undefined;
  // A write made idempotent by the server's key must never go without it.
  const keyed = window !== null && judged === "write";
  const effect = keyed ? "idempotent" : judged;
  return {
    kind: "tool",
    // The server's words as given (a local tool's are not trimmed either); blank says whose tool it is.
    description: tool.description?.trim() ? tool.description : `${tool.name} (a tool of MCP server ${server})`,
    args: tool.inputSchema,
    // A JSON object (the listing kept no other); compiling it checks the rest.
    ...(checked ? { outputSchema: tool.outputSchema as SchemaInput } : {}),
    effect,
    ...(effect === "idempotent" ? { dedupWindowMs: window ?? DEFAULT_REMOTE_DEDUP_MS } : {}),
    ...(window !== null && effect === "idempotent" ? { maxAttempts: EFFECT_KEY_MAX_ATTEMPTS } : {}),
    ...(def.timeoutMs !== undefined ? { timeoutMs: def.timeoutMs } : {}),
    ...(def.needsApproval === true || (Array.isArray(def.needsApproval) && def.needsApproval.includes(tool.name)) ? { needsApproval: true } : {}),
    annotations: { mcpServer: server, mcpTool: tool.name },
    execute: async (_state: unknown, args: Record<string, unknown> | undefined, call: ToolCallContext): Promise<ToolResult> => {
      try {
        return toolResultOf(await connection.callTool(remote, args ?? {}, call.signal, call.effectKey, keyed), checked);
      } catch (e) {
        // A server with the extension does not know the keyed call's outcome yet: ask it again.
        if (e instanceof RemoteToolError && window !== null && e.code === ErrorCode.InternalError) throw new TransientError(e.message, { cause: e });
        // The server answered the call with an error: the model sees its message.
        if (e instanceof RemoteToolError) return { status: "error", error: e.message };
        // The user must authorize weft first: the call parks with the URL and goes on once they have.
        const url = e instanceof WeftError && e.code === "mcp_auth_required" ? (e.details as { authorizationUrl?: unknown } | undefined)?.authorizationUrl : undefined;
        if (typeof url === "string") throw new CallSuspended(`${AUTHORIZATION_PARK} mcp server "${server}" needs your authorization: open ${url}`, [server]);
        // Unreachable is transient: a read or idempotent call is retried under the pipeline's table.
        if (e instanceof WeftError && e.code === "mcp_unreachable") throw new TransientError(`mcp_unreachable: ${e.message}`, { cause: e });
        if (e instanceof WeftError) throw new Error(`${e.code}: ${e.message}`, { cause: e });
        throw e;
      }
    },
  };
}

/** File extensions of the MIME types MCP content carries most. */
const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "audio/wav": "wav", "audio/mpeg": "mp3" };

/**
 * A `tools/call` answer as a `ToolResult`: text parts joined by newlines (or the structured
 * content as JSON when there is no text), images and audio as attachments, resources by their
 * text or URI; `isError: true` is an error result with the server's text.
 * `structured`: the tool declares an `outputSchema`. Then a success's result is its
 * `structuredContent` as JSON text (the text beside it is dropped: the value checked against the
 * schema is the value the model sees); an answer without `structuredContent` keeps its text,
 * which the pipeline reads as JSON and checks.
 */
export function toolResultOf(answer: CallToolResult, structured = false): ToolResult {
  const texts: string[] = [];
  const attachments: ToolAttachment[] = [];
  for (const [i, part] of (answer.content ?? []).entries()) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "image" || part.type === "audio") {
      attachments.push({ name: `${part.type}-${i + 1}.${EXTENSIONS[part.mimeType] ?? "bin"}`, mimeType: part.mimeType, data: part.data });
    } else if (part.type === "resource") {
      const r = part.resource as { uri: string; text?: string };
      texts.push(typeof r.text === "string" ? r.text : `[resource ${r.uri}]`);
    } else if (part.type === "resource_link") texts.push(`[resource ${part.uri}]`);
  }
  const withAttachments = attachments.length > 0 ? { attachments } : {};
  // An error carries no structured result (the specification): its text, unchecked.
  if (answer.isError !== true && structured && answer.structuredContent !== undefined) return { status: "success", result: JSON.stringify(answer.structuredContent), ...withAttachments };
  // A tool with an outputSchema MUST answer structured content that conforms (MCP 2025-06-18,
  // Tools > Output Schema): without it the text is all there is, so the pipeline checks the text
  // as JSON, and one that does not conform fails as a missing structured result would.
  if (texts.length === 0 && answer.structuredContent !== undefined) texts.push(JSON.stringify(answer.structuredContent));
  const text = texts.join("\n");
  if (answer.isError === true) return { status: "error", error: text || "the MCP server reported an error without a message" };
  return { status: "success", result: text, ...withAttachments };
}
