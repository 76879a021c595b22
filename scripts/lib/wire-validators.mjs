// @ts-check
/**
 * Validators of provider request histories, one per wire format, holding the rules the real
 * providers enforce on tool calls (they answer 400 when one is broken). The fake provider runs
 * them on every request, so a test whose thread produced an invalid history fails as it would
 * against the real API. Each also checks the request's settings (wire-settings.mjs: sampling,
 * output bounds, tool choice, reasoning, caching, `is_error`). Each returns a list of problems;
 * empty means valid.
 * @module
 */

import { anthropicSettings, chatSettings, responsesSettings } from "./wire-settings.mjs";

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** @param {unknown} text */
function isJsonObjectText(text) {
  if (typeof text !== "string") return false;
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}


const MEDIA_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** @param {unknown} url */
const isHttpUrl = (url) => typeof url === "string" && /^https?:\/\/[^\s]+$/i.test(url);
/** A `data:<media type>;base64,<data>` URL. @param {unknown} url */
const isDataUrl = (url) => typeof url === "string" && /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})$/i.test(url);

/**
 * Chat Completions user content: a string, or parts `text`, `image_url` (`{ url }`: http(s) or a
 * base64 data URL) and `file` (`{ file_data: data URL, filename }` or `{ file_id }`).
 * @param {any} content @param {string} at @returns {string[]}
 */
function chatUserContent(content, at) {
  if (typeof content === "string") return [];
  if (!Array.isArray(content) || content.length === 0) return [`${at}: user content is neither a string nor a list of parts`];
  return content.flatMap((/** @type {any} */ p, /** @type {number} */ j) => {
    const where = `${at}.content[${j}]`;
    if (p.type === "text") return typeof p.text === "string" && p.text !== "" ? [] : [`${where}: empty text part`];
    if (p.type === "image_url") return isHttpUrl(p.image_url?.url) || isDataUrl(p.image_url?.url) ? [] : [`${where}: image_url.url is not an http(s) or base64 data URL`];
    if (p.type === "file") return isDataUrl(p.file?.file_data) || typeof p.file?.file_id === "string" ? [] : [`${where}: file has no base64 file_data data URL or file_id`];
    return [`${where}: unknown part type ${JSON.stringify(p.type)}`];
  });
}

/**
 * Responses user content: a string, or parts `input_text`, `input_image` (`image_url`: http(s) or
 * a base64 data URL, or `file_id`) and `input_file` (`file_data` data URL with `filename`, `file_url`, or `file_id`).
 * @param {any} content @param {string} at @returns {string[]}
 */
function responsesUserContent(content, at) {
  if (typeof content === "string") return [];
  if (!Array.isArray(content) || content.length === 0) return [`${at}: user content is neither a string nor a list of parts`];
  return content.flatMap((/** @type {any} */ p, /** @type {number} */ j) => {
    const where = `${at}.content[${j}]`;
    if (p.type === "input_text") return typeof p.text === "string" ? [] : [`${where}: input_text without text`];
    if (p.type === "input_image") return isHttpUrl(p.image_url) || isDataUrl(p.image_url) || typeof p.file_id === "string" ? [] : [`${where}: input_image has no http(s) or data URL image_url, nor file_id`];
    if (p.type === "input_file") {
      if (isDataUrl(p.file_data)) return typeof p.filename === "string" && p.filename !== "" ? [] : [`${where}: input_file file_data without filename`];
      return isHttpUrl(p.file_url) || typeof p.file_id === "string" ? [] : [`${where}: input_file has no file_data, file_url or file_id`];
    }
    return [`${where}: unknown part type ${JSON.stringify(p.type)}`];
  });
}

/**
 * Anthropic user blocks besides text and tool results: `image` and `document`, each with a
 * `source` of `base64` (`media_type`, `data`) or `url`.
 * @param {any} b @param {string} where @returns {string[]}
 */
function anthropicSource(b, where) {
  const source = b.source;
  if (source?.type === "url") return isHttpUrl(source.url) ? [] : [`${where}: source.url is not an http(s) URL`];
  if (source?.type === "base64") {
    const problems = [];
    if (typeof source.media_type !== "string" || !MEDIA_TYPE.test(source.media_type)) problems.push(`${where}: source.media_type is not a media type`);
    if (b.type === "image" && !/^image\/(jpeg|png|gif|webp)$/.test(source.media_type)) problems.push(`${where}: image media type ${source.media_type} is not jpeg, png, gif or webp`);
    if (typeof source.data !== "string" || !BASE64.test(source.data)) problems.push(`${where}: source.data is not base64`);
    return problems;
  }
  if (b.type === "document" && source?.type === "text") return typeof source.data === "string" ? [] : [`${where}: text source without data`];
  return [`${where}: ${b.type} without a base64 or url source`];
}

/**
 * OpenAI Chat Completions `messages`: the calls of an assistant message are answered, each once,
 * by the tool messages right after it, before any other message; no tool message answers a call
 * it does not follow; call ids are unique and at most 40 characters; arguments are JSON objects.
 * @param {any} body @returns {string[]}
 */
export function validateChatCompletions(body) {
  const problems = [];
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  if (messages.length === 0) problems.push("messages: empty");
  const seen = new Set();
  /** @type {Set<string> | null} */
  let open = null;
  messages.forEach((/** @type {any} */ m, /** @type {number} */ i) => {
    if (m.role === "tool") {
      if (!open || !open.has(m.tool_call_id)) problems.push(`messages[${i}]: tool message for ${m.tool_call_id}, which the assistant message before it did not call (or answered already)`);
      else open.delete(m.tool_call_id);
      return;
    }
    if (open && open.size > 0) problems.push(`messages[${i}]: ${m.role} message while calls ${[...open].join(", ")} are unanswered`);
    open = null;
    if (m.role === "user") problems.push(...chatUserContent(m.content, `messages[${i}]`));
    if (m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      open = new Set();
      for (const c of m.tool_calls) {
        if (typeof c.id !== "string" || c.id.length > 40 || !SAFE_ID.test(c.id)) problems.push(`messages[${i}]: call id ${JSON.stringify(c.id)} is not a valid id`);
        if (seen.has(c.id)) problems.push(`messages[${i}]: call id ${c.id} used twice`);
        seen.add(c.id);
        open.add(c.id);
        if (!isJsonObjectText(c.function?.arguments)) problems.push(`messages[${i}]: call ${c.id} arguments are not a JSON object`);
      }
    }
  });
  if (open && /** @type {Set<string>} */ (open).size > 0) problems.push(`end: calls ${[.../** @type {Set<string>} */ (open)].join(", ")} are unanswered`);
  problems.push(...chatSettings(body));
  return problems;
}

/**
 * OpenAI Responses `input`: every `function_call_output` answers an earlier `function_call`, each
 * call is answered exactly once, and all before the next user message.
 * @param {any} body @returns {string[]}
 */
export function validateResponses(body) {
  const problems = [];
  const input = Array.isArray(body?.input) ? body.input : [];
  /** @type {Map<string, number>} */
  const calls = new Map();
  const answered = new Set();
  input.forEach((/** @type {any} */ item, /** @type {number} */ i) => {
    if (item.type === "function_call") {
      if (calls.has(item.call_id)) problems.push(`input[${i}]: call id ${item.call_id} used twice`);
      calls.set(item.call_id, i);
      if (!isJsonObjectText(item.arguments)) problems.push(`input[${i}]: call ${item.call_id} arguments are not a JSON object`);
    } else if (item.type === "function_call_output") {
      if (!calls.has(item.call_id)) problems.push(`input[${i}]: output for ${item.call_id}, which no earlier call made`);
      if (answered.has(item.call_id)) problems.push(`input[${i}]: second output for ${item.call_id}`);
      answered.add(item.call_id);
    } else if (item.type === "item_reference") {
      // A provider-executed item (a web search) replayed by id: the provider answered it itself.
      if (typeof item.id !== "string" || item.id === "") problems.push(`input[${i}]: item_reference without an id`);
    } else if (item.role === "user") {
      problems.push(...responsesUserContent(item.content, `input[${i}]`));
      for (const [id, at] of calls) if (!answered.has(id)) problems.push(`input[${i}]: user message while call ${id} (input[${at}]) is unanswered`);
    }
  });
  for (const [id, at] of calls) if (!answered.has(id)) problems.push(`end: call ${id} (input[${at}]) is unanswered`);
  problems.push(...responsesSettings(body));
  return problems;
}

/**
 * Anthropic Messages: roles alternate starting with user; every `tool_use` of an assistant message
 * is answered by a `tool_result` in the very next user message, each once, in call order, before
 * any text of that message; tool ids match `^[a-zA-Z0-9_-]+$`; no empty text.
 * @param {any} body @returns {string[]}
 */
export function validateAnthropic(body) {
  const problems = [];
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  if (messages.length === 0) problems.push("messages: empty");
  if (messages[0] && messages[0].role !== "user") problems.push("messages[0]: the first message must be a user message");
  /** @type {string[]} */
  let pending = [];
  const seen = new Set();
  messages.forEach((/** @type {any} */ m, /** @type {number} */ i) => {
    if (i > 0 && messages[i - 1].role === m.role) problems.push(`messages[${i}]: two ${m.role} messages in a row`);
    /** @type {any[]} */
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    if (blocks.length === 0) problems.push(`messages[${i}]: empty content`);
    for (const b of blocks) if (b.type === "text" && (typeof b.text !== "string" || b.text === "")) problems.push(`messages[${i}]: empty text block`);
    if (m.role === "user") {
      blocks.forEach((/** @type {any} */ b, /** @type {number} */ j) => {
        if (b.type === "image" || b.type === "document") problems.push(...anthropicSource(b, `messages[${i}].content[${j}]`));
      });
      const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
      const firstOther = blocks.findIndex((b) => b.type !== "tool_result");
      if (firstOther >= 0 && blocks.slice(firstOther).some((b) => b.type === "tool_result")) problems.push(`messages[${i}]: tool_result blocks after other content`);
      if (JSON.stringify(results) !== JSON.stringify(pending)) {
        problems.push(`messages[${i}]: tool results ${JSON.stringify(results)} do not answer the calls ${JSON.stringify(pending)} in order`);
      }
      pending = [];
    } else if (m.role === "assistant") {
      if (pending.length > 0) problems.push(`messages[${i}]: calls ${pending.join(", ")} are unanswered`);
      pending = blocks.filter((b) => b.type === "tool_use").map((b) => b.id);
      for (const id of pending) {
        if (!/^[a-zA-Z0-9_-]+$/.test(id)) problems.push(`messages[${i}]: tool_use id ${JSON.stringify(id)} is not a valid id`);
        if (seen.has(id)) problems.push(`messages[${i}]: tool_use id ${id} used twice`);
        seen.add(id);
      }
      for (const b of blocks) if (b.type === "tool_use" && (b.input === null || typeof b.input !== "object" || Array.isArray(b.input))) problems.push(`messages[${i}]: tool_use ${b.id} input is not an object`);
      // A server tool (web search) is answered by the provider's own result block, in the same message.
      blocks.forEach((b, at) => {
        if (b.type !== "server_tool_use") return;
        if (!blocks.slice(at + 1).some((r) => r.type === "web_search_tool_result" && r.tool_use_id === b.id)) problems.push(`messages[${i}]: server_tool_use ${b.id} has no result block after it`);
      });
      for (const r of blocks) if (r.type === "web_search_tool_result" && !blocks.some((b) => b.type === "server_tool_use" && b.id === r.tool_use_id)) problems.push(`messages[${i}]: web_search_tool_result for ${r.tool_use_id}, which this message did not call`);
    } else problems.push(`messages[${i}]: role ${m.role} is not user or assistant`);
  });
  if (pending.length > 0) problems.push(`end: calls ${pending.join(", ")} are unanswered`);
  problems.push(...anthropicSettings(body));
  return problems;
}
