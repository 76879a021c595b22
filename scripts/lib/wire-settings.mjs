// @ts-check
/**
 * The request-level fields each wire format's provider checks (it answers 400 when one is out of
 * its range or shape): sampling, output bounds, stop sequences, tool choice, reasoning, prompt
 * caching and tool results' error mark. wire-validators.mjs runs these beside its history rules,
 * so a model setting weft sends in a shape the provider refuses fails the test that sent it.
 * Ranges are the providers' documented ones (OpenAI's API reference, Anthropic's Messages API).
 * @module
 */

/** @param {unknown} v */
const isInt = (v) => typeof v === "number" && Number.isInteger(v);
/** @param {unknown} v */
const isNum = (v) => typeof v === "number" && Number.isFinite(v);

/**
 * `field` is absent, or a number within [min, max].
 * @param {any} body @param {string} field @param {number} min @param {number} max @returns {string[]}
 */
function inRange(body, field, min, max) {
  if (body?.[field] === undefined || body[field] === null) return [];
  return isNum(body[field]) && body[field] >= min && body[field] <= max ? [] : [`${field}: ${JSON.stringify(body[field])} is not a number in [${min}, ${max}]`];
}

/**
 * `field` is absent, or a whole number of at least `min`.
 * @param {any} body @param {string} field @param {number} min @returns {string[]}
 */
function atLeast(body, field, min) {
  if (body?.[field] === undefined || body[field] === null) return [];
  return isInt(body[field]) && body[field] >= min ? [] : [`${field}: ${JSON.stringify(body[field])} is not a whole number of at least ${min}`];
}

/** The names of a request's function tools, by each format's own shape. @param {any} body @returns {Set<string>} */
function toolNames(body) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  return new Set(tools.map((/** @type {any} */ t) => t?.function?.name ?? t?.name).filter((/** @type {unknown} */ n) => typeof n === "string"));
}

const OPENAI_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh"];

/**
 * OpenAI's `tool_choice`: `none`, `auto`, `required`, or one function the request offers
 * (`named(choice)` reads its name from the format's own shape).
 * @param {any} body @param {(choice: any) => unknown} named @param {string} shape @returns {string[]}
 */
function openaiToolChoice(body, named, shape) {
  const choice = body?.tool_choice;
  if (choice === undefined || choice === null) return [];
  if (typeof choice === "string") {
    if (!["none", "auto", "required"].includes(choice)) return [`tool_choice: ${JSON.stringify(choice)} is not none, auto or required`];
    return choice === "required" && toolNames(body).size === 0 ? ["tool_choice: required with no tools"] : [];
  }
  const name = named(choice);
  if (choice?.type !== "function" || typeof name !== "string") return [`tool_choice: ${JSON.stringify(choice)} is not ${shape}`];
  return toolNames(body).has(name) ? [] : [`tool_choice: names ${name}, which tools does not offer`];
}

/**
 * OpenAI Chat Completions: temperature [0, 2], top_p [0, 1], penalties [-2, 2], output bounds,
 * `stop` (a string or at most 4), `tool_choice`, `reasoning_effort`.
 * @param {any} body @returns {string[]}
 */
export function chatSettings(body) {
  const problems = [
    ...inRange(body, "temperature", 0, 2),
    ...inRange(body, "top_p", 0, 1),
    ...inRange(body, "presence_penalty", -2, 2),
    ...inRange(body, "frequency_penalty", -2, 2),
    ...atLeast(body, "max_tokens", 1),
    ...atLeast(body, "max_completion_tokens", 1),
    ...atLeast(body, "seed", Number.MIN_SAFE_INTEGER),
    ...openaiToolChoice(body, (c) => c?.function?.name, '{ type: "function", function: { name } }'),
  ];
  const stop = body?.stop;
  if (stop !== undefined && stop !== null && typeof stop !== "string" && !(Array.isArray(stop) && stop.length <= 4 && stop.every((s) => typeof s === "string" && s !== ""))) {
    problems.push(`stop: ${JSON.stringify(stop)} is not a string or a list of at most 4 non-empty strings`);
  }
  if (body?.reasoning_effort !== undefined && !OPENAI_EFFORTS.includes(body.reasoning_effort)) problems.push(`reasoning_effort: ${JSON.stringify(body.reasoning_effort)} is not one of ${OPENAI_EFFORTS.join(", ")}`);
  return problems;
}

/**
 * OpenAI Responses: temperature [0, 2], top_p [0, 1], `max_output_tokens` at least 16,
 * `tool_choice`, `reasoning.effort`, and every `function_call_output`'s `output` a string.
 * @param {any} body @returns {string[]}
 */
export function responsesSettings(body) {
  const problems = [
    ...inRange(body, "temperature", 0, 2),
    ...inRange(body, "top_p", 0, 1),
    ...atLeast(body, "max_output_tokens", 16),
    ...openaiToolChoice(body, (c) => c?.name, '{ type: "function", name }'),
  ];
  const effort = body?.reasoning?.effort;
  if (effort !== undefined && effort !== null && !OPENAI_EFFORTS.includes(effort)) problems.push(`reasoning.effort: ${JSON.stringify(effort)} is not one of ${OPENAI_EFFORTS.join(", ")}`);
  const input = Array.isArray(body?.input) ? body.input : [];
  input.forEach((/** @type {any} */ item, /** @type {number} */ i) => {
    if (item?.type === "function_call_output" && typeof item.output !== "string" && !Array.isArray(item.output)) problems.push(`input[${i}]: function_call_output.output is not a string`);
  });
  return problems;
}

/**
 * Every `cache_control` of an Anthropic request: `{ type: "ephemeral", ttl?: "5m" | "1h" }`, at
 * most 4 in one request (tools, system and messages together).
 * @param {any} body @returns {string[]}
 */
function anthropicCache(body) {
  const problems = [];
  let count = 0;
  /** @param {any} block @param {string} where */
  const check = (block, where) => {
    if (block?.cache_control === undefined) return;
    count++;
    const c = block.cache_control;
    if (c?.type !== "ephemeral" || (c.ttl !== undefined && c.ttl !== "5m" && c.ttl !== "1h")) problems.push(`${where}.cache_control: ${JSON.stringify(c)} is not { type: "ephemeral", ttl?: "5m" | "1h" }`);
  };
  (Array.isArray(body?.tools) ? body.tools : []).forEach((/** @type {any} */ t, /** @type {number} */ i) => check(t, `tools[${i}]`));
  if (Array.isArray(body?.system)) body.system.forEach((/** @type {any} */ b, /** @type {number} */ i) => check(b, `system[${i}]`));
  (Array.isArray(body?.messages) ? body.messages : []).forEach((/** @type {any} */ m, /** @type {number} */ i) => {
    if (Array.isArray(m?.content)) m.content.forEach((/** @type {any} */ b, /** @type {number} */ j) => check(b, `messages[${i}].content[${j}]`));
  });
  if (count > 4) problems.push(`cache_control: ${count} breakpoints, more than 4`);
  return problems;
}

/**
 * Anthropic Messages: `max_tokens` required (at least 1), temperature [0, 1], top_p [0, 1],
 * `stop_sequences` non-blank strings, `tool_choice` (`auto`, `any`, `none`, or `tool` naming an
 * offered tool), `thinking` (a budget of at least 1,024 below `max_tokens`; then no temperature but
 * 1 and no forced tool), `cache_control` blocks, and each `tool_result`'s `is_error` a boolean.
 * @param {any} body @returns {string[]}
 */
export function anthropicSettings(body) {
  const problems = [...inRange(body, "temperature", 0, 1), ...inRange(body, "top_p", 0, 1), ...atLeast(body, "top_k", 0), ...anthropicCache(body)];
  if (!isInt(body?.max_tokens) || body.max_tokens < 1) problems.push(`max_tokens: ${JSON.stringify(body?.max_tokens)} is not a whole number of at least 1 (it is required)`);
  const stops = body?.stop_sequences;
  if (stops !== undefined && !(Array.isArray(stops) && stops.every((s) => typeof s === "string" && s.trim() !== ""))) problems.push(`stop_sequences: ${JSON.stringify(stops)} is not a list of non-blank strings`);
  const choice = body?.tool_choice;
  if (choice !== undefined) {
    if (!["auto", "any", "none", "tool"].includes(choice?.type)) problems.push(`tool_choice: ${JSON.stringify(choice)} has no type auto, any, none or tool`);
    else if (choice.type === "tool" && !toolNames(body).has(choice.name)) problems.push(`tool_choice: names ${JSON.stringify(choice.name)}, which tools does not offer`);
    else if ((choice.type === "any" || choice.type === "tool") && toolNames(body).size === 0) problems.push(`tool_choice: ${choice.type} with no tools`);
  }
  const thinking = body?.thinking;
  if (thinking !== undefined && thinking?.type !== "disabled") {
    if (thinking?.type !== "enabled" || !isInt(thinking.budget_tokens) || thinking.budget_tokens < 1024) problems.push(`thinking: ${JSON.stringify(thinking)} is not { type: "enabled", budget_tokens >= 1024 } or disabled`);
    else if (isInt(body?.max_tokens) && thinking.budget_tokens >= body.max_tokens) problems.push(`thinking.budget_tokens: ${thinking.budget_tokens} is not below max_tokens ${body.max_tokens}`);
    if (body?.temperature !== undefined && body.temperature !== 1) problems.push("temperature: only 1 may be set while thinking is enabled");
    if (choice?.type === "any" || choice?.type === "tool") problems.push(`tool_choice: ${choice.type} cannot be used while thinking is enabled`);
  }
  (Array.isArray(body?.messages) ? body.messages : []).forEach((/** @type {any} */ m, /** @type {number} */ i) => {
    if (!Array.isArray(m?.content)) return;
    m.content.forEach((/** @type {any} */ b, /** @type {number} */ j) => {
      if (b?.type === "tool_result" && b.is_error !== undefined && typeof b.is_error !== "boolean") problems.push(`messages[${i}].content[${j}]: tool_result.is_error is not a boolean`);
    });
  });
  return problems;
}
