/**
 * One direct tool call as the Worker runs it, for every surface that offers one
 * (`POST /v1/tools/:name`, the MCP server's `tools/call`): session or continuation-token checks,
 * the tool-input size limit, then the call in the named thread or in a scratch thread.
 * @module
 */
import { byteLength, fitsBytes } from "../bytes.js";
import { WeftError } from "../errors.js";
import { limitOf } from "../limits.js";
import { type Caller, type IdempotencyClaim, type RpcResult, unwrap } from "../rpc.js";
import { outcomeWaitsForPerson, readOutcomeText } from "../run/direct.js";
import type { DirectCallInput, DirectCallOutcome } from "../run/rpc-shapes.js";
import type { WeftEnv } from "../thread/durable.js";
import type { Registry } from "../run/agent.js";
import { ToolCatalog } from "../tools/catalog.js";
import { serverOfToolName } from "../remote/remote-tools.js";
import { answerJson } from "./answers.js";
import { keyedThread, newThread, threadStub, tokenThread } from "./stubs.js";

const TOKEN = /^[^:]+:.+$/;

/**
 * No input re-serializes to more UTF-8 bytes than this many times the characters (UTF-16 code
 * units) of the JSON text it was parsed from: a number written `1e20` comes back as 21 digits,
 * one character as at most 3 bytes, and everything else no longer than it was written. (A UTF-8
 * text has at least as many bytes as characters, so its byte length bounds it too.)
 */
const REWRITE_GROWTH = 6;

/** What a direct call names: the input, and at most one of a session id or a continuation token. */
export interface DirectCallRequest {
  input?: unknown;
  sessionId?: string;
  continuationToken?: string;
}

/** A direct call's answer: the outcome, and for a scratch thread `scratchWorkspace` (and `sessionId` while it waits). */
export type DirectCallAnswer = DirectCallOutcome & { scratchWorkspace?: true; sessionId?: string };

/**
 * Runs tool `name` for `caller` through the thread's dispatch pipeline. With `idem` (the request's
 * `Idempotency-Key`) a repeat gets the first answer: the session's thread keeps the key, and
 * without a session the key names the scratch thread, which keeps it until its own alarm removes it.
 * @throws WeftError `unknown_tool`, `invalid_tool_input` (naming the path), `tool_not_callable`, `payload_too_large`
 *   (over `WEFT_MAX_TOOL_INPUT_BYTES`), `session_not_found`, `session_busy`, `invalid_continuation_token`.
 */
export async function runDirectCall(
  env: WeftEnv,
  caller: Caller,
  catalog: ToolCatalog,
  name: string,
  body: DirectCallRequest,
  idem?: IdempotencyClaim,
): Promise<DirectCallAnswer> {
  checkDirectCall(env, body, undefined);
  return runChecked(env, caller, catalog, name, body, idem);
}

/** The checks of a direct call that need no thread: session or token, and the tool-input size limit. */
function checkDirectCall(env: WeftEnv, body: DirectCallRequest, bodyLength: number | undefined): void {
  if (body.sessionId !== undefined && body.continuationToken !== undefined) {
    throw new WeftError("invalid_continuation_token", "give sessionId or continuationToken, not both", { path: ["continuationToken"] });
  }
  if (body.continuationToken !== undefined && !TOKEN.test(body.continuationToken)) {
    throw new WeftError("invalid_continuation_token", "continuationToken: expected <channelId>:<key>", { path: ["continuationToken"] });
  }
  const max = limitOf(env, "toolInputBytes");
  if (bodyLength !== undefined && bodyLength * REWRITE_GROWTH <= max) return;
  const text = body.input === undefined ? "" : JSON.stringify(body.input);
  if (!fitsBytes(text, max)) {
    throw new WeftError("payload_too_large", `input: ${byteLength(text)} bytes, over the ${max}-byte limit of a tool input (WEFT_MAX_TOOL_INPUT_BYTES)`, { path: ["input"], limit: max });
  }
}

/** What the thread runs: the tool and its input (`{}` when none was given). */
const callOf = (name: string, body: DirectCallRequest): DirectCallInput => ({ toolName: name, input: body.input ?? {} });

/**
 * A session's answer; its thread not found (or another user's) is `session_not_found`. A call its
 * session's deletion cut short keeps the thread's words and `details.deleted`.
 */
function inSession<T>(result: RpcResult<T>, sessionId: string): T {
  // Another user's session, like a missing one, is not found.
  if (!result.ok && result.error.code === "thread_not_found") {
    const deleted = result.error.details?.deleted === true;
    throw new WeftError("session_not_found", deleted ? result.error.message : `no session ${JSON.stringify(sessionId)}`, { path: ["sessionId"], ...(deleted ? { deleted } : {}) });
  }
  return unwrap(result);
}

/** {@link runDirectCall} after {@link checkDirectCall}. */
async function runChecked(env: WeftEnv, caller: Caller, catalog: ToolCatalog, name: string, body: DirectCallRequest, idem?: IdempotencyClaim): Promise<DirectCallAnswer> {
  const call = callOf(name, body);
  if (body.sessionId !== undefined) {
    return inSession(await threadStub(env, body.sessionId, "session_not_found").callTool(caller, call, idem), body.sessionId);
  }
  if (body.continuationToken !== undefined) {
    const { stub } = tokenThread(env, caller, body.continuationToken);
    const result = await stub.callTool(caller, call, idem);
    // A call the token's thread began and its deletion cut short is never run again in a scratch thread.
    if (result.ok || result.error.code !== "thread_not_found" || result.error.details?.deleted === true) return unwrap(result);
  }
  // No session: a scratch thread, made, called and removed in one round trip (or removed by its
  // own alarm if it dies first).
  catalog.get(name); // unknown_tool before any thread is made
  const { id, stub } = idem ? keyedThread(env, caller, "call", idem.key) : newThread(env);
  const threadId = id.toString();
  const input = body.continuationToken ? { arguments: { continuationToken: body.continuationToken } } : {};
  const { kept, ...outcome } = unwrap(await stub.scratchCall(caller, input, threadId, call, idem));
  return { ...outcome, scratchWorkspace: true, ...(kept ? { sessionId: threadId } : {}) };
}

/** A direct call's HTTP status: 202 while it waits for a person (an approval, or a parked outcome), else 200. */
const statusOf = (waits: boolean): 200 | 202 => (waits ? 202 : 200);

/**
 * `POST /v1/tools/:name`'s answer to a validated body: {@link runDirectCall}'s outcome, with 200
 * for a result and 202 while the call waits for a person (an approval, or a parked outcome).
 */
export async function answerDirectCall(
  env: WeftEnv,
  caller: Caller,
  catalog: ToolCatalog,
  name: string,
  body: DirectCallRequest,
  idem?: IdempotencyClaim,
): Promise<{ answer: DirectCallAnswer; status: 200 | 202 }> {
  const answer = await runDirectCall(env, caller, catalog, name, body, idem);
  return { answer, status: statusOf(outcomeWaitsForPerson(answer)) };
}

/**
 * {@link answerDirectCall} as the JSON text of the answer (what `c.json` would send; the thread
 * that ran the call cleaned it of secrets). A session's thread sends its outcome as text (`callToolJson`), which goes
 * on as it came: nothing is copied into objects or serialized again. `bodyLength`, the length of
 * the JSON text `body` was parsed from (in characters or in bytes), spares serializing an input
 * that small to measure it.
 */
export async function answerDirectCallJson(
  env: WeftEnv,
  caller: Caller,
  catalog: ToolCatalog,
  name: string,
  body: DirectCallRequest,
  idem?: IdempotencyClaim,
  bodyLength?: number,
): Promise<{ json: string; status: 200 | 202 }> {
  checkDirectCall(env, body, bodyLength);
  if (body.sessionId !== undefined) {
    const answer = await threadStub(env, body.sessionId, "session_not_found").callToolJson(caller, callOf(name, body), idem);
    if (typeof answer !== "string") return inSession(answer, body.sessionId);
    const { json, waits } = readOutcomeText(answer);
    return { json, status: statusOf(waits) };
  }
  const answer = await runChecked(env, caller, catalog, name, body, idem);
  return { json: answerJson(answer), status: statusOf(outcomeWaitsForPerson(answer)) };
}

/**
 * The catalog of direct calls without a session: the registry's tools. A name of a declared MCP
 * server's tool (`<server>__<tool>`) is not one of them (a scratch thread's agent offers no remote
 * tool), and its `unknown_tool` says where such a tool is called: in a session of an agent offering it.
 */
export function directCatalog(registry: Registry): ToolCatalog {
  return new ToolCatalog(registry.tools, (name) => {
    const server = serverOfToolName(name, registry.mcpServers ?? {});
    return server && `it is a tool of the remote MCP server "${server}": call it with the sessionId of a thread whose agent offers it`;
  });
}
