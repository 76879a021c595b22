/**
 * Judges what a thread did against what the reference validator says it should have done. Every
 * check returns a reason string on disagreement and `null` on agreement; nothing throws.
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { pathsRelated, formatPath } from "./reference.mjs";

/**
 * @typedef {import("./client.mjs").Frame} Frame
 * @typedef {{ id: string, toolName: string, originalName: string, args: Record<string, unknown> } & (
 *   { kind: "valid", expected: unknown }
 *   | { kind: "breaking", referencePaths: string[][] }
 *   | { kind: "variant", argument: string, path: (string | number)[], variant: string })} CallSpec
 * @typedef {{ turnId: string, start: Frame, finish: Frame, toolCalls: Array<{ id: string, name: string }>,
 *   firstStepSeq: number }} Turn
 */

/** Checks the stream as a whole: seq starts at 1 and has no gap or duplicate; frames are well-formed. */
export function checkStream(frames) {
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i];
    if (f.seq !== i + 1) return `frame #${i + 1} has seq ${f.seq} (expected ${i + 1}: gap, duplicate or reorder)`;
    if (typeof f.type !== "string" || typeof f.at !== "string") return `frame seq ${f.seq} lacks type or at`;
  }
  if (frames[0]?.type !== "thread_created") return `first frame is ${frames[0]?.type ?? "missing"}, not thread_created`;
  return null;
}

/**
 * Finds the `n`-th turn (0-based) in the stream: its start and finish frames and the tool calls
 * its model steps asked for, in order.
 * @returns {Turn | string} the turn, or a reason it is not there in one piece
 */
export function locateTurn(frames, n) {
  const start = frames.filter((f) => f.type === "turn_started")[n];
  if (!start) return `turn ${n + 1} never started`;
  const turnId = start.data?.turnId;
  const finish = frames.find((f) => f.type === "turn_finished" && f.data?.turnId === turnId);
  if (!finish) return `turn ${turnId} never finished`;
  if (finish.seq < start.seq) return `turn ${turnId} finished (seq ${finish.seq}) before it started (seq ${start.seq})`;
  const steps = frames.filter((f) => f.type === "model_step" && f.data?.turnId === turnId);
  const toolCalls = steps.flatMap((s) => (Array.isArray(s.data.toolCalls) ? s.data.toolCalls : []));
  return { turnId, start, finish, toolCalls, firstStepSeq: steps[0]?.seq ?? Infinity };
}

/**
 * Judges one scripted call.
 * @param {CallSpec} spec what was sent and what the reference decided
 * @param {number} index position of the call among the turn's scripted calls
 * @param {Turn} turn
 * @param {Frame[]} frames the whole stream
 * @param {any[]} records `GET /threads/:id/calls` rows
 * @param {Map<string, string>} toOriginal tool name -> BFCL function name
 * @returns {string | null} why weft disagrees, or null
 */
export function checkCall(spec, index, turn, frames, records, toOriginal) {
  const requested = turn.toolCalls.find((c) => c.id === spec.id) ?? turn.toolCalls[index];
  if (!requested) return `model_step frames do not show call ${spec.id}`;
  if (requested.name !== spec.toolName) return `model_step shows tool ${requested.name}, scripted ${spec.toolName}`;
  const callId = requested.id;
  const mine = frames.filter((f) => f.data?.callId === callId);
  const started = mine.filter((f) => f.type === "tool_call_started");
  const finished = mine.filter((f) => f.type === "tool_call_finished");
  if (finished.length !== 1) return `${finished.length} tool_call_finished events (expected exactly 1)`;
  const fin = finished[0];
  if (fin.data.toolName !== spec.toolName || toOriginal.get(fin.data.toolName) !== spec.originalName) {
    return `finished event names tool ${fin.data.toolName}, which does not map back to ${spec.originalName}`;
  }
  if (!(turn.firstStepSeq < fin.seq && fin.seq < turn.finish.seq)) {
    return `finished event (seq ${fin.seq}) not between its model_step (${turn.firstStepSeq}) and turn_finished (${turn.finish.seq})`;
  }
  const record = records.find((r) => r.callId === callId);
  if (!record) return `GET /calls has no record for ${callId}`;

  if (spec.kind === "valid") {
    if (started.length !== 1) return `${started.length} tool_call_started events (expected exactly 1)`;
    const st = started[0];
    if (!(turn.firstStepSeq < st.seq && st.seq < fin.seq)) {
      return `events out of order: model_step ${turn.firstStepSeq}, started ${st.seq}, finished ${fin.seq}`;
    }
    if (st.data.source !== "model") return `started event has source ${st.data.source}, expected model`;
    if (fin.data.isError || fin.data.status !== "succeeded") {
      return `refused or failed a call the reference accepts: ${fin.data.status} ${String(fin.data.error ?? "").slice(0, 300)}`;
    }
    if (fin.data.attempts !== 1) return `attempts ${fin.data.attempts} (expected 1)`;
    const got = parseJson(fin.data.result);
    if (!isDeepStrictEqual(got, spec.expected)) return `executed with ${show(got)}, expected ${show(spec.expected)}`;
    if (!isDeepStrictEqual(st.data.input, spec.expected)) return `started event input ${show(st.data.input)}, expected ${show(spec.expected)}`;
    if (record.status !== "succeeded" || record.attempts !== 1) return `call record: status ${record.status}, attempts ${record.attempts}`;
    if (!isDeepStrictEqual(record.input, spec.expected)) return `call record input ${show(record.input)}, expected ${show(spec.expected)}`;
    if (!isDeepStrictEqual(parseJson(record.result?.result), spec.expected)) return `call record result ${show(record.result)}`;
    return null;
  }

  // Refusals: the reference refuses, so weft must refuse before anything starts.
  if (started.length !== 0) return `tool_call_started appeared for a call the reference refuses (execute may have run)`;
  if (!fin.data.isError || fin.data.status === "succeeded") return `accepted a call the reference refuses (${refusedBecause(spec)})`;
  // Validation precedes execution: a refused call was never attempted.
  if (fin.data.attempts !== 0 || record.attempts !== 0) return `refused call shows attempts ${fin.data.attempts}/${record.attempts} (expected 0)`;
  if (fin.data.errorCode !== "invalid_tool_input") return `refused without invalid_tool_input: ${show(fin.data.errorCode)} ${show(fin.data.error)}`;
  if (record.status === "succeeded" || record.result?.status !== "error") return `call record says ${record.status}/${record.result?.status}`;
  // Paths come from the structured issues the event and the record carry, never from the prose.
  const named = issuePaths(fin.data.errorDetails);
  if (named === null) return `tool_call_finished carries no errorDetails.issues with array paths: ${show(fin.data.errorDetails)}`;
  if (!isDeepStrictEqual(issuePaths(record.errorDetails), named)) return `call record issues ${show(record.errorDetails)} differ from the event's`;
  if (spec.kind === "breaking") {
    const agrees = named.some((p) => spec.referencePaths.some((q) => pathsRelated(p, q)));
    if (!agrees) return `refusal names ${show(named.map(formatPath))}, the reference faults ${show(spec.referencePaths.map(formatPath))}`;
  } else if (!named.some((p) => pathsRelated(p, spec.path))) {
    return `${spec.variant} variant: refusal names ${show(named.map(formatPath))}, not ${formatPath(spec.path.map(String))}`;
  }
  return null;
}

/** The `path` of every issue in `details.issues`, or null when they are missing or not arrays. */
export function issuePaths(details) {
  const issues = details?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return null;
  if (!issues.every((i) => Array.isArray(i?.path) && i.path.every((s) => typeof s === "string" || typeof s === "number"))) return null;
  return issues.map((i) => i.path);
}

/**
 * Judges whether an offered tool reached the model: `GET /threads/:id` lists it among `tools`
 * with the description and input schema sent, and not among `unavailableTools`.
 * @param {{ name: string, description: string, parameters: unknown }} tool as offered
 * @param {any} info the thread
 * @returns {string | null}
 */
export function checkAdvertised(tool, info) {
  const unavailable = (info?.unavailableTools ?? []).find((t) => t.name === tool.name);
  if (unavailable) return `offered tool listed unavailable: ${unavailable.reason}`;
  const shown = (info?.tools ?? []).find((t) => t.name === tool.name);
  if (!shown) return `offered tool missing from the model's tool list (and not listed unavailable)`;
  if (shown.description !== (tool.description || tool.name)) return `description shown ${show(shown.description)}, offered ${show(tool.description)}`;
  if (!isDeepStrictEqual(shown.inputSchema, tool.parameters)) return `input schema shown ${show(shown.inputSchema)} differs from the one offered ${show(tool.parameters)}`;
  return null;
}

/** Why the reference refused a spec, for messages. */
function refusedBecause(spec) {
  return spec.kind === "variant" ? `${spec.variant} of ${spec.argument}` : `reference faults ${spec.referencePaths.map(formatPath).join(", ")}`;
}

/**
 * Judges an irrelevance turn: it completed, the model answered in text, and no tool ran.
 * @returns {string | null}
 */
export function checkIrrelevance(turn, frames, records) {
  if (turn.finish.data?.status !== "completed") return `turn finished ${turn.finish.data?.status}: ${turn.finish.data?.error ?? ""}`;
  const toolFrames = frames.filter((f) => f.type === "tool_call_started" || f.type === "tool_call_finished");
  if (toolFrames.length > 0) return `${toolFrames.length} tool call events in an irrelevance case`;
  if (records.length > 0) return `${records.length} call records in an irrelevance case`;
  const answered = frames.some((f) => f.type === "message_created" && f.data?.message?.role === "assistant" && f.data.message.content);
  if (!answered) return `no assistant text message`;
  return null;
}

function parseJson(text) {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Short JSON for messages. */
export function show(value) {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 300 ? `${s.slice(0, 300)}...` : s;
}
