/**
 * A user message of more than text: content as a list of parts (text, an image, a file), in the
 * AI SDK's shape (`ai`'s `TextPart`, `ImagePart`, `FilePart`), the data as text: an `http(s)` URL
 * the provider fetches itself (weft never fetches it), or base64. Stored with the message
 * (`messages.parts`), replayed with the history, sent in each provider's own form.
 * @module
 */
import { z } from "zod";
import { jsonTextBytes } from "../bytes.js";
import { WeftError } from "../errors.js";

/** At most this many parts in one message. */
export const MAX_PARTS = 64;

const MEDIA_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** An `http(s)` URL. */
function isWebUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** Image or file data: an http(s) URL, or base64 (no `data:` prefix). */
const data = z.string().refine((text) => text !== "" && (isWebUrl(text) || (text.length % 4 === 0 && BASE64.test(text))), {
  message: "expected an http(s) URL or base64 data (no data: prefix)",
});

const mediaType = z.string().regex(MEDIA_TYPE, { message: "expected a media type such as image/png or application/pdf" });

/** The shape of one part, checked (unknown fields refused). */
export const contentPartSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("text"), text: z.string().min(1) }),
    z.strictObject({
      type: z.literal("image"),
      image: data,
      mediaType: mediaType.refine((t) => t.toLowerCase().startsWith("image/"), { message: "expected an image media type such as image/png" }).optional(),
    }),
    z.strictObject({ type: z.literal("file"), data, mediaType, filename: z.string().min(1).max(255).optional() }),
  ],
  { error: 'expected a part of type "text", "image" or "file"' },
);

/**
 * One part of a user message: `{ type: "text", text }`; `{ type: "image", image, mediaType? }`
 * (`image` an http(s) URL or base64; `mediaType` such as `image/png`, needed with base64);
 * `{ type: "file", data, mediaType, filename? }` (`data` likewise; `application/pdf` is the type
 * the most providers take).
 */
export type ContentPart = z.output<typeof contentPartSchema>;

/** A message's parts: 1 to {@link MAX_PARTS}. */
export const contentPartsSchema = z.array(contentPartSchema).min(1).max(MAX_PARTS);

/** A posted message's content: text, or a list of parts. */
export const messageContentSchema = z.union([z.string(), contentPartsSchema]);

/** Posted content: text, or parts. */
export type MessageContent = string | ContentPart[];

/** Whether a part's data is a URL (else base64). */
export function isUrlData(text: string): boolean {
  return isWebUrl(text);
}

/** The text of parts: their text parts, a blank line apart (what a message's `content` holds). */
export function textOfParts(parts: readonly ContentPart[]): string {
  return parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n\n");
}

/**
 * Posted content as stored: its text, and its parts when it was a list. Checked: each part's
 * shape; a base64 image names its media type; only a user message carries images and files; text
 * and parts together within `max` bytes as stored (JSON), so the row, its inbox row and its
 * `message_created` event each stay under Cloudflare's 2 MB per row. An image or file larger than
 * that goes by URL.
 * @throws WeftError `invalid_request` with the part's path (`["content", 1, "mediaType"]`);
 * `payload_too_large` naming the largest part's path and the limit.
 */
export function storedContent(content: MessageContent, role: "user" | "system", max: number, setting = ""): { content: string; parts?: ContentPart[] } {
  if (typeof content === "string") return { content };
  const parsed = contentPartsSchema.safeParse(content);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = ["content", ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    throw new WeftError("invalid_request", `${path.join(".")}: ${issue.message.replace(/^Invalid input: /, "")}`, { path });
  }
  const parts = parsed.data;
  parts.forEach((part, i) => {
    if (part.type === "text") return;
    if (role !== "user") throw new WeftError("invalid_request", `content.${i}: only a user message may carry an image or a file`, { path: ["content", i] });
    if (part.type === "image" && part.mediaType === undefined && !isWebUrl(part.image)) {
      throw new WeftError("invalid_request", `content.${i}.mediaType: base64 image data needs its media type (such as image/png)`, { path: ["content", i, "mediaType"] });
    }
  });
  const text = textOfParts(parts);
  const bytes = jsonTextBytes(text) + jsonTextBytes(JSON.stringify(parts));
  if (bytes > max) {
    const sizes = parts.map((p) => jsonTextBytes(p.type === "text" ? p.text : p.type === "image" ? p.image : p.data));
    const largest = sizes.indexOf(Math.max(...sizes));
    const part = parts[largest]!;
    const path = ["content", largest, part.type === "text" ? "text" : part.type === "image" ? "image" : "data"];
    throw new WeftError(
      "payload_too_large",
      `${path.join(".")}: the message is ${bytes} bytes as stored (its text and parts, JSON), over the ${max}-byte limit of a message${setting ? ` (${setting})` : ""}; send a large image or file by URL`,
      { path, limit: max },
    );
  }
  return { content: text, parts };
}
