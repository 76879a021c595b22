/**
 * An upper bound on a model request's input tokens, counted before it is sent (the budget
 * reservation's input). Text is bounded by its UTF-8 bytes; images and files, which a provider
 * reads by pixels and pages rather than bytes, by the rules of {@link partBound}; the results of
 * tools the provider runs itself (web search), by the model's context window.
 * @module
 */
import type { Message } from "../protocol.js";
import type { ModelTool } from "../models/model.js";
import type { ContentPart } from "../content/parts.js";
import { isUrlData } from "../content/parts.js";

/**
 * Input tokens a provider adds to a request that offers tools, beyond what weft sends: Anthropic
 * documents a tool-use system prompt of up to about 530 tokens, depending on the model.
 */
export const TOOL_USE_ALLOWANCE = 600;

/**
 * Input tokens one image is bounded to. Providers scale an image down before they count it, so its
 * tokens are bounded whatever its bytes: Anthropic's vision docs count width × height / 750 with
 * images scaled to about 1.15 megapixels (~1,600 tokens; models that read images at higher
 * resolution, up to ~5,000); OpenAI's image costs are at most 85 + 170 × 8 tiles = 1,445 (gpt-4o,
 * gpt-4.1) and 1,536 patches × 2.46 = 3,779 (the patch models, gpt-4.1-nano the dearest).
 */
export const IMAGE_INPUT_TOKENS = 6000;

/**
 * Input tokens one image is bounded to on gpt-4o-mini, which OpenAI bills at 2,833 + 5,667 per tile
 * (so that an image costs what it does on gpt-4o): 2,833 + 5,667 × 8 tiles.
 */
export const GPT_4O_MINI_IMAGE_INPUT_TOKENS = 48_169;

/** Context window assumed for a file when the request names none, in tokens (weft's default window). */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

/** What {@link inputBound} and {@link inputTokensOf} read of a request. */
export interface BoundedInput {
  system?: string;
  messages: readonly Pick<Message, "content" | "toolCalls" | "name" | "parts">[];
  tools: readonly ModelTool[];
  /** `"<provider>:<model id>"`, for its image rule. */
  model?: string;
  /** The model's context window in tokens, the bound of a file (default {@link DEFAULT_CONTEXT_TOKENS}). */
  contextTokens?: number;
}

/**
 * How {@link inputTokensOf} counts a request's text: a whole message (its content, name and tool
 * calls, with its framing) and any other text (the system prompt, a tool's name, description and
 * schema).
 */
export interface TextMeasure {
  message(m: Pick<Message, "content" | "toolCalls" | "name">): number;
  text(t: string): number;
}

/**
 * A request's input tokens, its text counted by `measure`: the system prompt, each message and
 * each image and file part of it by {@link partBound}, each tool offered, and, when tools are
 * offered, {@link TOOL_USE_ALLOWANCE} (`textOnly`: the text alone, without parts and allowance,
 * which are bounds rather than estimates). The one rule of what a request sends, for its reservation
 * ({@link inputBound}) and for the estimate of a request the provider reported no input for
 * (`estimateInput` in src/usage/row.ts).
 */
export function inputTokensOf(request: BoundedInput, measure: TextMeasure, textOnly = false): number {
  let n = request.system ? measure.text(request.system) + 8 : 0;
  for (const m of request.messages) {
    n += measure.message(m);
    // A text part repeats `content` (which holds the parts' text): only images and files add.
    if (!textOnly) for (const part of m.parts ?? []) if (part.type !== "text") n += partBound(part, request) + 8;
  }
  for (const t of request.tools) n += measure.text(t.name) + measure.text(t.description) + measure.text(JSON.stringify(t.inputSchema)) + 8;
  // A tool the provider runs itself (a web search) adds its results to the input it bills: not
  // known before they come, bounded as a file is by the model's window.
  if (!textOnly && request.tools.some((t) => t.executionMode === "provider")) n += request.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  return n + 16 + (request.tools.length > 0 && !textOnly ? TOOL_USE_ALLOWANCE : 0);
}

/** Text counted at a token a UTF-8 byte (no byte-level BPE tokenizer makes more tokens than bytes). */
const BYTES: TextMeasure = {
  message: (m) => bytes(m.content) + bytes(JSON.stringify(m.toolCalls ?? [])) + bytes(m.name ?? "") + 8,
  text: bytes,
};

/**
 * An upper bound on a request's input tokens: {@link inputTokensOf} with its text counted at a
 * token a UTF-8 byte (no byte-level BPE tokenizer makes more tokens than bytes).
 */
export function inputBound(request: BoundedInput): number {
  return inputTokensOf(request, BYTES);
}

/**
 * The input tokens of one image or file part, at most:
 * - an image: {@link IMAGE_INPUT_TOKENS} ({@link GPT_4O_MINI_IMAGE_INPUT_TOKENS} on gpt-4o-mini),
 *   by URL or inline alike (the provider counts pixels, not bytes);
 * - a text file (`text/*`, JSON, XML, CSV) inline: its decoded bytes;
 * - any other file (a PDF, audio), or a text file by URL: the model's context window. A provider
 *   reads a PDF page by page as text and as an image, so its tokens are not known before it is read
 *   (a URL's not even its size); the window is the most input the provider accepts in one request.
 */
export function partBound(part: Exclude<ContentPart, { type: "text" }>, request: Pick<BoundedInput, "model" | "contextTokens">): number {
  if (part.type === "image" || part.mediaType.toLowerCase().startsWith("image/")) {
    const bare = request.model?.slice(request.model.indexOf(":") + 1) ?? "";
    return bare.startsWith("gpt-4o-mini") ? GPT_4O_MINI_IMAGE_INPUT_TOKENS : IMAGE_INPUT_TOKENS;
  }
  if (!isUrlData(part.data) && TEXT_MEDIA.test(part.mediaType)) return Math.ceil((part.data.length * 3) / 4);
  return request.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
}

/** Media types of text a provider reads as it is. */
const TEXT_MEDIA = /^(text\/|application\/(json|xml|csv|x-ndjson)\b)/i;

const encoder = new TextEncoder();

function bytes(text: string): number {
  return encoder.encode(text).length;
}
